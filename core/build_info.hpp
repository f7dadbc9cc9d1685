#pragma once
// Which source the binaries were built from, for the files that record how a result was made
// (fk-bench's CSV and header, the apps' summary.json, every executable's --version).

namespace fk {

// The commit of the source tree at build time: 12 hex digits, "-modified" appended when tracked
// files differed from it, or "unknown" when the tree was not a git checkout. Written by
// cmake/BuildInfo.cmake at every build.
const char* build_commit();

}  // namespace fk
