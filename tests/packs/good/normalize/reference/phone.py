def normalize_phone(text):
    return text
