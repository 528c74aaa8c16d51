import email.utils
import html
import html.parser
import http
import mimetypes
import urllib.parse
import xml.dom.minidom
import xml.etree.ElementTree as ET
from email.message import EmailMessage

url = "https://user@example.com:8080/a/b;p?q=1&q=2&x=%20y#frag"
parts = urllib.parse.urlsplit(url)
print(parts.hostname, parts.port, urllib.parse.parse_qs(parts.query), urllib.parse.unquote(parts.query))
print(urllib.parse.urlencode({"q": "a b", "n": [1, 2]}, doseq=True),
      urllib.parse.quote("a/b c", safe=""), urllib.parse.urljoin(url, "../c"))
print(html.escape("<a href='x'>&</a>"), html.unescape("&lt;&eacute;&#39;"),
      http.HTTPStatus.NOT_FOUND.phrase, http.HTTPStatus(201).name)
print(mimetypes.guess_type("data.json"), mimetypes.guess_type("page.html"),
      mimetypes.guess_type("pic.png"), mimetypes.guess_extension("text/csv"))


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.found.append(dict(attrs).get("href"))


parser = Links()
parser.feed('<p>See <a href="/one">one</a> and <a href="/two">two</a></p>')
print(parser.found)
root = ET.fromstring("<items><item id='1'>a</item><item id='2'>b</item></items>")
print([(i.get("id"), i.text) for i in root.iter("item")], root.find("item[@id='2']").text)
new = ET.Element("config", version="1")
ET.SubElement(new, "name").text = "svc"
ET.indent(new)
print(ET.tostring(new, encoding="unicode"))
ET.ElementTree(new).write("config.xml", encoding="utf-8", xml_declaration=True)
print(ET.parse("config.xml").getroot().find("name").text,
      xml.dom.minidom.parseString("<a><b/></a>").documentElement.tagName)
msg = EmailMessage()
msg["Subject"], msg["From"], msg["To"] = "Hi", "a@example.com", "b@example.com"
msg["Message-ID"] = email.utils.make_msgid(idstring="fixed", domain="example.com").split("@")[1]
msg.set_content("Body text")
msg.add_attachment(b"\x00\x01", maintype="application", subtype="octet-stream", filename="a.bin")
print(msg["Subject"], msg.is_multipart(), [p.get_content_type() for p in msg.iter_parts()],
      email.utils.parseaddr("Ann <a@x.org>"))
print(email.utils.format_datetime(email.utils.parsedate_to_datetime("Tue, 02 Jan 2024 03:04:05 +0000")))
