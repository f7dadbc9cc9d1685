#include "apps/common/checkpoint.hpp"

#include <filesystem>
#include <system_error>

#include "core/io/atomic_file.hpp"

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

CheckpointWriter::CheckpointWriter(std::string dir) : dir_(std::move(dir)), tmp_(dir_ + ".tmp") {
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  if (ec) throw_fs("remove", tmp_, ec);
  fs::create_directories(tmp_, ec);
  if (ec) throw_fs("create", tmp_, ec);
}

CheckpointWriter::~CheckpointWriter() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

std::string CheckpointWriter::file(const std::string& name) const { return tmp_ + "/" + name; }

void CheckpointWriter::set(const std::string& key, const std::string& value) {
  for (ConfigEntry& e : state_)
    if (e.key == key) {
      e.ini = value;
      return;
    }
  state_.push_back({key, value, json_quote(value)});
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
  fs::rename(tmp_, dir_, ec);
  if (ec) throw_fs("rename", tmp_, ec);
  committed_ = true;
  fs::remove_all(old, ec);  // best effort: a leftover DIR.old is harmless
}

std::string Checkpoint::get(const std::string& key) const {
  const auto v = find_value(state, key);
  if (!v) throw InputError(file(kStateFile), 0, "checkpoint state has no '" + key + "'");
  return *v;
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

}  // namespace fk::app
