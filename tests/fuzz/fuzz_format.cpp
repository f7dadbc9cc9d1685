// Fuzzes detect_format. The first byte picks the file name, since the extension takes part in
// the decision; the rest is the file.
#include "core/io/format.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  if (size < 1) return 0;
  static const char* const kNames[] = {"input", "m.mtx", "m.smtx.gz", "docword.x.txt", "r.csv"};
  const std::string path = fuzz::write_file(kNames[data[0] % 5], data + 1, size - 1);
  io::InputFormat f = io::InputFormat::kAuto;
  if (!fuzz::refused([&] { f = io::detect_format(path); }))
    fuzz::require(f != io::InputFormat::kAuto, "detect_format answered 'auto'");
  return 0;
}
