// Fuzzes what --resume reads back from a checkpoint folder: state.ini (the bytes before the first
// NUL) and one array, a.npy (the bytes after it, when there is a NUL), through find_checkpoint,
// check_fingerprint, get_count, check_shape and array, as resume_checkpoint and the trainers do.
#include <climits>
#include <cstring>
#include <filesystem>

#include "apps/common/checkpoint.hpp"
#include "core/log.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  set_log_level(LogLevel::kWarn);
  const std::string dir = fuzz::scratch_dir() + "/run/checkpoint";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // the previous input's a.npy
  const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t state_size = nul ? static_cast<std::size_t>(nul - data) : size;
  fuzz::write_file("run/checkpoint/state.ini", data, state_size);
  if (nul) fuzz::write_file("run/checkpoint/a.npy", nul + 1, size - state_size - 1);

  std::optional<app::Checkpoint> ck;
  if (fuzz::refused([&] { ck = app::find_checkpoint(dir); }) || !ck) return 0;
  const app::ResolvedConfig fingerprint = {{"seed", "1", "1"}, {"input", "in.mtx", "\"in.mtx\""}};
  fuzz::refused([&] { app::check_fingerprint(*ck, fingerprint); });
  std::int64_t iter = -1;
  if (!fuzz::refused([&] { iter = ck->get_count("iter", INT_MAX); }))
    fuzz::require(iter >= 0 && iter <= INT_MAX, "get_count outside its range");
  fuzz::refused([&] { ck->check_shape("a.npy", 2, 3); });
  HostDense<float> a;
  if (!fuzz::refused([&] { a = ck->array("a.npy", 2, 3); }))
    fuzz::require(a.rows() == 2 && a.cols() == 3, "array() gave another shape");
  return 0;
}
