"""Submits a class to a bryo server with mosspy, as an instructor's script
does: `python mosspy_client.py USERID PORT LANGUAGE BASE GLOB` run in the
class's directory, directory mode on; prints the URL answered."""

import sys

import mosspy

userid, port, language, base, pattern = sys.argv[1:6]
m = mosspy.Moss(int(userid), language)
m.server = "127.0.0.1"
m.port = int(port)
m.setDirectoryMode(1)
m.addBaseFile(base)
m.addFilesByWildcard(pattern)
url = m.send()
print(url)
