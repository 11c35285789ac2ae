# cmake -DIN=file -DOUT=file.inc -DINCLUDE_DIR=dir -P embed_text.cmake
# Writes IN as a C++ raw string literal, with lines `#include "x"` replaced by INCLUDE_DIR/x.
file(STRINGS ${IN} lines)
set(body "")
foreach(line IN LISTS lines)
  if(line MATCHES "^#include \"([^\"]+)\"")
    file(READ ${INCLUDE_DIR}/${CMAKE_MATCH_1} inc)
    string(APPEND body "${inc}\n")
  else()
    string(APPEND body "${line}\n")
  endif()
endforeach()
file(WRITE ${OUT} "R\"gfxq_glsl(${body})gfxq_glsl\"\n")
