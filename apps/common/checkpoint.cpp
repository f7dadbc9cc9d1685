#include "apps/common/checkpoint.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "core/io/atomic_file.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"
#include "kernels/variant.hpp"

namespace fk::app {

namespace fs = std::filesystem;

namespace {
constexpr const char* kStateFile = "state.ini";
// The key written last into state.ini: a state file without it was cut short.
constexpr const char* kCompleteKey = "complete";

void throw_fs(const std::string& what, const std::string& path, const std::error_code& ec) {
  throw Error("checkpoint: cannot " + what + " '" + path + "': " + ec.message());
}
}  // namespace

namespace {
constexpr const char* kContentPrefix = "content.";

// One step of a lane: bijective in `h` for a given word (a multiply by an odd constant, then an
// xorshift), so a lane, and the hash made of the lanes, differ whenever a single word does.
inline std::uint64_t hash_step(std::uint64_t h, std::uint64_t word) {
  h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

// The 8 bytes at `p` as a little-endian word: the same hash on any machine. (memcpy compiles to
// one load; assembling the bytes one by one made the hash of a page-cached file half as fast.)
inline std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}
}  // namespace

std::string content_hash64(const std::string& path, std::uintmax_t* bytes) {
  // Four independent lanes over 32-byte blocks: the multiplies overlap, about 4.5 GB/s of a
  // page-cached file on one core of the development machine, so that the pass is bound by the
  // disk, not by the hash.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    throw InputError(path, 0,
                     std::string("cannot be read again to record its content for --resume: ") +
                         std::strerror(errno));
  std::uint64_t lane[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL,
                           0x082efa98ec4e6c89ULL};
  constexpr std::size_t kChunk = std::size_t{1} << 20;  // a multiple of the 32-byte block
  std::vector<unsigned char> buf(kChunk + 32);
  std::uint64_t total = 0;
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, kChunk, f.get())) > 0) {
    total += n;
    if (n % 32 != 0) {  // the last chunk: zeros up to a whole block (the length goes in below)
      std::memset(buf.data() + n, 0, 32 - n % 32);
      n += 32 - n % 32;
    }
    for (std::size_t i = 0; i < n; i += 32)
      for (int l = 0; l < 4; ++l) lane[l] = hash_step(lane[l], load_le64(buf.data() + i + 8 * l));
  }
  if (std::ferror(f.get()))
    throw InputError(path, 0, "a read error while recording its content for --resume");
  std::uint64_t h = hash_step(0x452821e638d01377ULL, total);
  for (const std::uint64_t v : lane) h = hash_step(h, v);
  h = hash_step(h, 0);  // one more round, so that the last lane's bits are spread too
  if (bytes) *bytes = total;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

InputContents input_contents(const ResolvedConfig& fingerprint, bool needed) {
  InputContents out;
  if (!needed) return out;
  Stopwatch clock;
  std::uintmax_t read = 0;
  for (const ConfigEntry& e : fingerprint) {
    if (e.key != "input" && e.key != "test") continue;
    if (e.ini.empty() || e.ini.rfind("gen:", 0) == 0) continue;
    std::error_code ec;
    if (!fs::is_regular_file(e.ini, ec)) continue;  // a pipe or a device: read once, by the run
    InputContent c{e.key, e.ini, 0, ""};
    c.hash = content_hash64(e.ini, &c.bytes);  // the size as read, not a second look
    read += c.bytes;
    out.push_back(std::move(c));
  }
  if (clock.seconds() > 1.0)
    log_info() << "input content recorded for --resume (" << read / (1 << 20) << " MiB hashed in "
               << fmt("%.1f", clock.seconds()) << " s)";
  return out;
}

CheckpointWriter::CheckpointWriter(std::string dir) : dir_(std::move(dir)), stage_(dir_ + ".tmp") {}

std::string CheckpointWriter::file(const std::string& name) { return stage_.file(name); }

void CheckpointWriter::set(const std::string& key, const std::string& value) {
  for (ConfigEntry& e : state_)
    if (e.key == key) {
      e.ini = value;
      return;
    }
  state_.push_back({key, value, json_quote(value)});
}

void CheckpointWriter::set_fingerprint(const ResolvedConfig& fingerprint) {
  for (const ConfigEntry& e : fingerprint) set("config." + e.key, e.ini);
}

void CheckpointWriter::set_input_contents(const InputContents& contents) {
  for (const InputContent& c : contents) {
    set(kContentPrefix + c.key + ".bytes", std::to_string(c.bytes));
    set(kContentPrefix + c.key + ".hash", c.hash);
  }
}

void CheckpointWriter::commit() {
  {
    io::AtomicFile state(file(kStateFile));
    for (const ConfigEntry& e : state_) state.stream() << e.key << " = " << e.ini << '\n';
    state.stream() << kCompleteKey << " = 1\n";
    state.commit();
  }
  const std::string old = dir_ + ".old";
  std::error_code ec;
  fs::remove_all(old, ec);
  if (ec) throw_fs("remove", old, ec);
  if (fs::exists(dir_, ec)) {
    fs::rename(dir_, old, ec);
    if (ec) throw_fs("rename", dir_, ec);
  }
  fs::rename(stage_.path(), dir_, ec);
  if (ec) throw_fs("rename", stage_.path(), ec);
  stage_.release();
  io::set_signal_note("interrupted: the same command with --resume goes on from the checkpoint in " +
                      dir_ + "\n");
  fs::remove_all(old, ec);  // best effort: a leftover DIR.old is harmless
}

std::string Checkpoint::get(const std::string& key) const {
  const auto v = find_value(state, key);
  if (!v) throw InputError(file(kStateFile), 0, "checkpoint state has no '" + key + "'");
  return *v;
}

std::int64_t Checkpoint::get_count(const std::string& key, std::int64_t max) const {
  const std::string text = get(key);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < 0 || v > max)
    throw InputError(file(kStateFile), 0,
                     "'" + key + "' is not a whole number from 0 to " + std::to_string(max) +
                         ": '" + text + "'");
  return v;
}

namespace {
[[noreturn]] void wrong_shape(const std::string& path, std::int64_t rows, std::int64_t cols,
                              const std::string& has) {
  throw InputError(path, 0,
                   "is " + has + ", this data and these options need " + std::to_string(rows) +
                       " x " + std::to_string(cols));
}
}  // namespace

void Checkpoint::check_shape(const std::string& name, std::int64_t rows, std::int64_t cols) const {
  const io::NpyHeader h = io::read_npy_header(file(name));
  if (h.shape.size() != 2 || h.shape[0] != rows || h.shape[1] != cols) {
    std::string has;
    for (std::size_t i = 0; i < h.shape.size(); ++i)
      has += (i ? " x " : "") + std::to_string(h.shape[i]);
    wrong_shape(file(name), rows, cols, has.empty() ? "a scalar" : has);
  }
}

HostDense<float> Checkpoint::array(const std::string& name, std::int64_t rows,
                                   std::int64_t cols) const {
  HostDense<float> a = io::read_npy_f32(file(name));
  if (a.rows() != rows || a.cols() != cols)
    wrong_shape(file(name), rows, cols, std::to_string(a.rows()) + " x " + std::to_string(a.cols()));
  return a;
}

std::optional<Checkpoint> find_checkpoint(const std::string& dir) {
  for (const std::string& d : {dir, dir + ".old"}) {
    std::error_code ec;
    const std::string state_path = d + "/" + kStateFile;
    if (!fs::is_regular_file(state_path, ec)) continue;
    Checkpoint c{d, read_key_values(state_path)};
    if (find_value(c.state, kCompleteKey)) return c;
  }
  return std::nullopt;
}

namespace {
bool is_file_key(const std::string& key) {
  return key == "input" || key == "test" || key == "vocab";
}
// A file by its canonical path (in/u.data and ./in/u.data are one input); generated inputs and
// paths that do not resolve stay as written.
std::string canonical_file(const std::string& text) {
  if (text.empty() || text.rfind("gen:", 0) == 0) return text;
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(text, ec), ec);
  return ec ? text : p.string();
}
}  // namespace

ResolvedConfig model_fingerprint(const ResolvedConfig& config,
                                 const std::vector<std::string>& extra_free,
                                 const ResolvedConfig& implied) {
  // precision, ratio-spmm, product-spmm and repeatable go with sddmm and spmm: they choose kernels
  // (and how they round), not the model being trained, so a run may resume at another one.
  static const char* const kFree[] = {"iters",     "out",        "device",       "threads",
                                      "quiet",     "verbose",    "compare",
                                      "checkpoint-every",
                                      "resume",    "sddmm",      "spmm",
                                      "precision", "ratio-spmm", "product-spmm",
                                      "repeatable"};
  ResolvedConfig out;
  for (const ConfigEntry& e : config) {
    const bool free = std::any_of(std::begin(kFree), std::end(kFree),
                                  [&](const char* k) { return e.key == k; }) ||
                      std::find(extra_free.begin(), extra_free.end(), e.key) != extra_free.end();
    if (free) continue;
    out.push_back(e);
    if (!is_file_key(e.key)) continue;
    out.back().ini = canonical_file(e.ini);
    const bool as_implied = std::any_of(implied.begin(), implied.end(), [&](const ConfigEntry& i) {
      return i.key == e.key && !i.ini.empty() && canonical_file(i.ini) == out.back().ini;
    });
    if (as_implied) out.pop_back();
  }
  return out;
}

void check_fingerprint(const Checkpoint& ck, const ResolvedConfig& fingerprint,
                       const ResolvedConfig& implied) {
  for (const ConfigEntry& e : fingerprint) {
    const auto saved = find_value(ck.state, "config." + e.key);
    // Checkpoints from before file keys were canonical hold the path as it was given.
    const bool same = saved && (*saved == e.ini ||
                                (is_file_key(e.key) && canonical_file(*saved) == e.ini));
    if (!same)
      throw UsageError("--resume: the checkpoint in " + ck.dir + " was made with " + e.key + " = " +
                       (saved ? *saved : std::string("(unset)")) + ", this run has " + e.key +
                       " = " + e.ini + "; use the same configuration or another --out");
  }
  // The other way, for files only (a run always has every other key): a checkpoint made with
  // --vocab mine.txt is not resumed by a run whose vocabulary is the one beside its input.
  for (const ConfigEntry& s : ck.state) {
    const std::string key = s.key.rfind("config.", 0) == 0 ? s.key.substr(7) : std::string();
    if (!is_file_key(key)) continue;
    const bool in_run = std::any_of(fingerprint.begin(), fingerprint.end(),
                                    [&](const ConfigEntry& e) { return e.key == key; });
    // A checkpoint from before implied files were left out may name the implied file itself.
    const bool as_implied = std::any_of(implied.begin(), implied.end(), [&](const ConfigEntry& i) {
      return i.key == key && !i.ini.empty() && canonical_file(i.ini) == canonical_file(s.ini);
    });
    if (!in_run && !as_implied)
      throw UsageError("--resume: the checkpoint in " + ck.dir + " was made with " + key + " = " +
                       s.ini + ", this run has " + key +
                       " = (unset); use the same configuration or another --out");
  }
}

void check_input_contents(const Checkpoint& ck, const ResolvedConfig& fingerprint,
                          const InputContents& contents) {
  const bool records = std::any_of(ck.state.begin(), ck.state.end(), [](const ConfigEntry& s) {
    return s.key.rfind(kContentPrefix, 0) == 0;
  });
  // The files that could not be checked, by why: "FILE (--KEY)[, ...]" after each reason.
  std::vector<std::pair<std::string, std::string>> unchecked;
  for (const ConfigEntry& e : fingerprint) {
    if (e.key != "input" && e.key != "test") continue;
    if (e.ini.empty() || e.ini.rfind("gen:", 0) == 0) continue;
    const auto now = std::find_if(contents.begin(), contents.end(),
                                  [&](const InputContent& c) { return c.key == e.key; });
    const auto bytes = find_value(ck.state, kContentPrefix + e.key + ".bytes");
    const auto hash = find_value(ck.state, kContentPrefix + e.key + ".hash");
    if (now == contents.end() || !bytes || !hash) {
      const std::string why = now == contents.end() ? "a pipe or a device cannot be read again"
                              : records ? "the checkpoint records none for it"
                                        : "the checkpoint, written by an older version, records "
                                          "no input content";
      const std::string file = e.ini + " (--" + e.key + ")";
      auto group = std::find_if(unchecked.begin(), unchecked.end(),
                                [&](const auto& g) { return g.first == why; });
      if (group == unchecked.end())
        unchecked.emplace_back(why, file);
      else
        group->second += " and " + file;
      continue;
    }
    const std::string size_now = std::to_string(now->bytes);
    if (*bytes == size_now && *hash == now->hash) continue;
    const std::string what =
        *bytes != size_now ? "it was " + *bytes + " bytes then, " + size_now + " now"
                           : "the same size (" + *bytes + " bytes) but other content (hash " +
                                 *hash + " then, " + now->hash + " now)";
    const std::string out = fs::path(ck.dir).parent_path().string();
    throw UsageError("--resume: " + e.ini + " (--" + e.key +
                     ") has changed since the checkpoint in " + ck.dir + " was written: " + what +
                     ", and the checkpoint's model was trained on the old content. To train on "
                     "the file as it is now, start afresh: leave out --resume (the old checkpoint "
                     "is set aside in " +
                     out + "/" + kPreviousRunDir +
                     " and dropped when the new run finishes) or use another --out; to resume, "
                     "put the old file back");
  }
  if (unchecked.empty()) return;
  std::string files;
  for (const auto& [why, names] : unchecked)
    files += (files.empty() ? "" : "; ") + names + " (" + why + ")";
  log_warn() << "--resume: could not check that the content of " << files
             << " is what the checkpoint was trained on; resuming as before";
}

namespace {
// What --resume starts from: nullopt when `resume` is false; otherwise the checkpoint at `dir`
// (checked with check_fingerprint and check_input_contents), or nullopt after logging
// "--resume: no checkpoint in DIR; starting from the beginning" when there is none. The
// checkpoint's count of iterations done (its `count_key`: "iter", or "pass") may not exceed the
// run's --iters `total`: that run would hand back a model trained longer than asked (UsageError
// naming --iters; `noun` names the unit).
std::optional<Checkpoint> resume_checkpoint(bool resume, const std::string& dir,
                                            const ResolvedConfig& fingerprint,
                                            const std::string& count_key, int total,
                                            const std::string& noun,
                                            const ResolvedConfig& implied,
                                            const InputContents& contents) {
  if (!resume) return std::nullopt;
  std::optional<Checkpoint> ck = find_checkpoint(dir);
  if (!ck) {
    const fs::path previous = fs::path(dir).parent_path() / kPreviousRunDir;
    std::error_code ec;
    for (const fs::path& kept : {previous / "checkpoint", previous / kStoppedRunDir / "checkpoint"})
      if (fs::exists(kept, ec))
        usage_fail("resume", "no checkpoint in " + dir + ", but " + kept.string() +
                                 " holds one (moved there when a run started over it): move it "
                                 "back to " +
                                 dir +
                                 " to resume from it, or leave out --resume "
                                 "to start from the beginning");
    log_info() << "--resume: no checkpoint in " << dir << "; starting from the beginning";
    return std::nullopt;
  }
  check_fingerprint(*ck, fingerprint, implied);
  check_input_contents(*ck, fingerprint, contents);
  const std::int64_t done = ck->get_count(count_key, INT_MAX);
  if (done > total)
    usage_fail("iters", "the checkpoint in " + ck->dir + " is after " + noun + " " +
                            std::to_string(done) + ", past --iters " + std::to_string(total) +
                            "; ask for at least " + std::to_string(done) +
                            " or use another --out");
  return ck;
}

// A run that starts from the beginning removes an earlier run's checkpoint at `dir` (and its
// ".old" and ".tmp", what a killed write may leave): it rewrites metrics.jsonl from its first
// iteration, and a later --resume must not join that checkpoint's model to this run's log. Throws
// fk::Error when it cannot.
void remove_stale_checkpoint(const std::string& dir) {
  for (const std::string& d : {dir, dir + ".old", dir + ".tmp"}) {
    std::error_code ec;
    fs::remove_all(d, ec);
    if (ec) throw Error("cannot remove the earlier run's checkpoint " + d + ": " + ec.message());
  }
}

bool is_compare_run(const ResolvedConfig& c) {
  return std::any_of(c.begin(), c.end(),
                     [](const ConfigEntry& e) { return e.key == "compare" && e.ini == "true"; });
}

// The configuration config.ini records for this run. A --compare run's two runs (OUT/gpu, OUT/cpu)
// each record their own: that device and folder, without --compare, so that --config
// OUT/cpu/config.ini runs the CPU run again rather than the whole comparison into OUT.
ResolvedConfig config_of_this_run(const RunStart& s) {
  ResolvedConfig c = s.config;
  if (!is_compare_run(c)) return c;
  const std::string device = s.device.rfind("GPU", 0) == 0 ? "gpu" : "cpu";
  for (ConfigEntry& e : c) {
    if (e.key == "compare") e = {e.key, "false", "false"};
    if (e.key == "out") e = {e.key, s.out, json_quote(s.out)};
    if (e.key == "device") e = {e.key, device, json_quote(device)};
  }
  return c;
}
}  // namespace

std::string rounding_device(const Context& ctx) {
  return ctx.is_gpu() ? ctx.describe() : "CPU: " + cpu_rounding_setup();
}

std::optional<Checkpoint> start_training_output(const RunStart& s) {
  check_outputs_are_not_inputs(s.out, s.outputs, s.inputs);
  check_no_directory_in_the_way(s.out, s.outputs);
  ensure_output_dir(s.out);
  const std::string dir = s.out + "/checkpoint";
  std::optional<Checkpoint> ck =
      resume_checkpoint(s.resume, dir, s.fingerprint, s.count_key, s.iters, s.noun, s.implied,
                        s.contents);
  if (ck) {
    for (const CheckpointShape& a : s.arrays) ck->check_shape(a.name, a.rows, a.cols);
    const auto made = find_value(ck->state, kCheckpointDeviceKey);
    if (made && *made != s.device)
      log_warn() << "--resume: the checkpoint was computed on " << *made << ", this run is on "
                 << s.device << ": the model may differ in its last digits from an uninterrupted "
                 << "run (kernels may split rows and round differently)";
  }
  keep_previous_run(s.out, s.outputs, ck.has_value());
  if (!ck) remove_stale_checkpoint(dir);  // what is left: checkpoint.old, an interrupted commit's
  write_resolved_config(s.out, config_of_this_run(s), s.app);
  // The whole comparison's configuration, as given, in OUT/compare.ini (each of its runs writes
  // the same file): --config OUT/compare.ini runs it again. Not OUT/config.ini, which would make
  // OUT look like a training run's folder.
  if (const auto whole_out = find_value(s.config, "out"); whole_out && is_compare_run(s.config))
    write_config_ini(*whole_out + "/compare.ini", s.config, "an " + s.app + " --compare run");
  return ck;
}

void save_checkpoint(const std::string& dir, int iter, const std::string& iter_name,
                     const ResolvedConfig& fingerprint, const InputContents& contents,
                     const std::string& device, const std::vector<CheckpointArray>& arrays) {
  Stopwatch clock;
  CheckpointWriter w(dir);
  for (const CheckpointArray& a : arrays) io::write_npy(w.file(a.file), a.data);
  w.set("iter", std::to_string(iter));
  w.set(kCheckpointDeviceKey, device);
  w.set_fingerprint(fingerprint);
  w.set_input_contents(contents);
  w.commit();
  log_info() << "checkpoint after " << iter_name << " " << iter << " written to " << dir << " in "
             << fmt("%.3f", clock.seconds()) << " s";
}

}  // namespace fk::app
