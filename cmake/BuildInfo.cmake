# Run at every build (cmake -P, from core/CMakeLists.txt): writes OUT, the source of
# fk::build_commit(), with the commit of the tree at SRC ("-modified" when tracked files differ
# from it, "unknown" without git). The file is rewritten only when its text changes, so a build at
# the same commit recompiles and relinks nothing.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes RESULT_VARIABLE status ERROR_QUIET)
  if(NOT status EQUAL 0 OR NOT changes STREQUAL "")
    string(APPEND commit "-modified")
  endif()
endif()
set(text "// Written by cmake/BuildInfo.cmake at build time.\n#include \"core/build_info.hpp\"\n\nconst char* fk::build_commit() { return \"${commit}\"; }\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
