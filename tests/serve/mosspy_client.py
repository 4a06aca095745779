"""Submits a class to a bryo server with mosspy, as an instructor's script
does: `python mosspy_client.py USERID PORT LANGUAGE BASE GLOB [COMMENT]`
run in the class's directory, directory mode on; prints the URL answered
(or the server's `Error:` line)."""

import sys

import mosspy

userid, port, language, base, pattern = sys.argv[1:6]
m = mosspy.Moss(int(userid), language)
m.server = "127.0.0.1"
m.port = int(port)
m.setDirectoryMode(1)
if len(sys.argv) > 6:
    m.setCommentString(sys.argv[6])
m.addBaseFile(base)
m.addFilesByWildcard(pattern)
url = m.send()
print(url)
