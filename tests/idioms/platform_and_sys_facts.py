import os
import platform
import sys
import sysconfig

print(platform.python_version() == "%d.%d.%d" % sys.version_info[:3], platform.system(),
      sys.platform, os.name)
print(platform.python_implementation(), sys.implementation.name, sys.byteorder, sys.maxsize == 2 ** 63 - 1)
print(platform.machine() == os.uname().machine, isinstance(platform.node(), str))
print(platform.libc_ver()[0], isinstance(platform.release(), str), platform.uname().system)
print(sys.getdefaultencoding(), sys.getfilesystemencoding(), sys.flags.optimize,
      sys.float_info.dig, sys.hash_info.width)
print(sysconfig.get_python_version(), isinstance(sysconfig.get_paths()["purelib"], str),
      sys.prefix == sys.base_prefix or True)
print(isinstance(os.cpu_count(), int), sys.stdout.encoding.lower(), isinstance(sys.executable, str), __name__)
print(isinstance(sys.argv[0], str), os.path.basename(__file__), sys.version_info >= (3, 11),
      sys.int_info.bits_per_digit)
