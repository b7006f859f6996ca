"""Mock MCP servers for the course.

``catalog`` defines the servers once, as plain data and handlers: ``docs`` and ``deploy``
from the s19 chapter, and two ``acme`` wiki servers whose names need normalizing (s21).
s19-s22 run them in process; from s23 on the same definitions are served by real MCP
servers over stdio, SSE and Streamable HTTP.
"""
