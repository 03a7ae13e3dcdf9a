# extract.cmake - the C example of README.md ("## The library") as a program (cmake -P).
#
#   cmake -DREADME=README.md -DOUT=readme_example.c -P extract.cmake
#
# Takes the first ```c block after the heading "## The library". A block that defines main()
# is compiled as it is; a fragment is wrapped: its #include lines first, then
# `#include <stdio.h>` and `#include <nholo/nholo.h>`, then the rest as the body of
# `int main(void) { ... return 0; }`. No block is an error, so the README cannot lose it.
file(READ "${README}" text)
string(FIND "${text}" "\n## The library" at)
if(at LESS 0)
  message(FATAL_ERROR "${README}: no '## The library' section")
endif()
string(SUBSTRING "${text}" ${at} -1 text)
string(FIND "${text}" "\n```c\n" open)
if(open LESS 0)
  message(FATAL_ERROR "${README}: no ```c block in '## The library'")
endif()
math(EXPR open "${open} + 6")
string(SUBSTRING "${text}" ${open} -1 text)
string(FIND "${text}" "\n```" close)
if(close LESS 0)
  message(FATAL_ERROR "${README}: the ```c block in '## The library' is not closed")
endif()
string(SUBSTRING "${text}" 0 ${close} code)
set(header "/* generated from ${README} by tests/readme/extract.cmake: do not edit */\n")
if(code MATCHES "int[ \t\n]+main[ \t\n]*\\(")
  file(WRITE "${OUT}" "${header}${code}\n")
else()
  string(REGEX MATCHALL "#include[^\n]*" includes "${code}")
  string(REGEX REPLACE "#include[^\n]*\n?" "" body "${code}")
  string(REPLACE ";" "\n" includes "${includes}")
  file(WRITE "${OUT}" "${header}${includes}\n#include <stdio.h>\n#include <nholo/nholo.h>\n"
                      "int main(void) {\n${body}\n  return 0;\n}\n")
endif()
