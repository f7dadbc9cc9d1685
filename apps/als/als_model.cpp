#include "apps/als/als_model.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "apps/common/output.hpp"
#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/csv.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"

namespace fk::als {
namespace {

void write_ids(const std::string& path, const std::vector<std::string>& ids) {
  io::CsvWriter w(path, {"index", "id"});
  for (std::size_t k = 0; k < ids.size(); ++k) w.row({std::to_string(k), ids[k]});
  w.commit();
}

// A saved model's numbers are finite (training stops on a diverged model): anything else is a
// damaged file, which would rank by NaN.
void check_finite(const HostDense<float>& a, const std::string& path) {
  for (std::int64_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(a.data()[i]))
      throw InputError(path, 0,
                       "entry " + std::to_string(i) + " is " + app::format_double(a.data()[i]) +
                           "; a saved model holds finite numbers only");
}

// A factor matrix, rows x factors. The reader takes a 1-D array as n x 1, so a vector put in its
// place (a copy of user_bias.npy) passed as a one-factor matrix, and the factor count check then
// blamed the other, sound file: "item_factors.npy: has 64 factors but user_factors.npy has 1".
HostDense<float> read_factors(const std::string& path) {
  const io::NpyHeader h = io::read_npy_header(path);
  if (h.shape.size() != 2)
    throw InputError(path, 0,
                     "is a " + std::to_string(h.shape.size()) +
                         "-D array; a factor matrix is 2-D (rows x factors)");
  return io::read_npy_f32(path);
}

std::vector<std::string> read_ids(const std::string& path, std::int64_t expected) {
  io::CsvReader in(path);
  if (in.header().size() != 2 || in.header()[0] != "index" || in.header()[1] != "id")
    throw InputError(path, 1, "expected the header 'index,id'");
  std::vector<std::string> ids;
  std::unordered_set<std::string> seen;
  std::vector<std::string> f;
  while (in.next(f)) {
    if (f[0] != std::to_string(ids.size()))
      throw InputError(path, in.line_number(),
                       "expected index " + std::to_string(ids.size()) + ", got '" + f[0] + "'");
    if (!seen.insert(f[1]).second)
      throw InputError(path, in.line_number(), "id '" + f[1] + "' is listed twice");
    ids.push_back(f[1]);
  }
  if (static_cast<std::int64_t>(ids.size()) != expected)
    throw InputError(path, 0,
                     "holds " + std::to_string(ids.size()) + " ids but the factors have " +
                         std::to_string(expected) + " rows");
  return ids;
}

HostDense<float> columns(const HostDense<float>& m, int first, int count) {
  HostDense<float> out(m.rows(), count);
  for (std::int64_t r = 0; r < m.rows(); ++r)
    for (int c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

std::string required(const app::ResolvedConfig& cfg, const std::string& key,
                     const std::string& path) {
  const auto v = app::find_value(cfg, key);
  if (!v) throw InputError(path, 0, "missing key '" + key + "'");
  return *v;
}

// The index `find` gives an id a user typed, looked up as typed, else without the blanks at its
// ends ("1 " typed for "1"); -1 when neither is known. The rule of --item and of recommend's ids.
template <typename Find>
std::int64_t find_as_typed(const std::string& raw, const Find& find) {
  const std::int64_t i = find(raw);
  return i >= 0 ? i : find(app::trim_blanks(raw));
}

}  // namespace

std::int64_t AlsModel::item_index(const std::string& raw) const {
  return find_as_typed(raw, [&](const std::string& id) -> std::int64_t {
    const auto it = std::find(item_ids.begin(), item_ids.end(), id);
    return it == item_ids.end() ? -1 : it - item_ids.begin();
  });
}

float AlsModel::score(std::int64_t user, std::int64_t item) const {
  double s = implicit ? 0.0 : global_mean + user_bias[user] + item_bias[item];
  for (std::int64_t c = 0; c < users.cols(); ++c) s += double(users(user, c)) * items(item, c);
  return static_cast<float>(s);
}

void save_als_model(const std::string& dir, const HostDense<float>& users_aug,
                    const HostDense<float>& items_aug, int factors, bool biases, bool implicit,
                    double global_mean, const std::vector<std::string>& user_ids,
                    const std::vector<std::string>& item_ids, const HostCsr& train,
                    const std::string& app_name) {
  FK_CHECK(users_aug.cols() == factors + (biases ? 1 : 0) && items_aug.cols() == users_aug.cols(),
           "factor matrices of the wrong width");
  io::write_npy(dir + "/user_factors.npy", columns(users_aug, 0, factors));
  io::write_npy(dir + "/item_factors.npy", columns(items_aug, 0, factors));
  std::vector<float> ub(static_cast<std::size_t>(users_aug.rows()), 0.0f),
      ib(static_cast<std::size_t>(items_aug.rows()), 0.0f);
  if (biases) {
    for (std::int64_t u = 0; u < users_aug.rows(); ++u) ub[u] = users_aug(u, factors);
    for (std::int64_t i = 0; i < items_aug.rows(); ++i) ib[i] = items_aug(i, factors);
  }
  io::write_npy(dir + "/user_bias.npy", ub);
  io::write_npy(dir + "/item_bias.npy", ib);
  write_ids(dir + "/user_ids.csv", user_ids);
  write_ids(dir + "/item_ids.csv", item_ids);
  // Written a piece at a time: whole, the pairs took 8 bytes a rating beside the model.
  std::int64_t u = 0;  // the row of the next pair; the pieces come in order
  io::write_npy_i32_rows(dir + "/train_pairs.npy", train.nnz(), 2,
                         [&](std::int64_t first, std::int64_t n, std::int32_t* out) {
                           for (std::int64_t j = first; j < first + n; ++j, out += 2) {
                             while (train.row_ptr[u + 1] <= j) ++u;
                             out[0] = static_cast<std::int32_t>(u);
                             out[1] = train.col_idx[j];
                           }
                         });
  io::AtomicFile ini(dir + "/model.ini");
  ini.stream()
      << "# " << app_name
      << " model: score = global_mean + user_bias + item_bias + user_factors . item_factors"
      << (app_name == "fk-als" ? " (implicit: the dot product only)" : "")
      << "; files: user_factors.npy and item_factors.npy (rows as in user_ids.csv and"
         " item_ids.csv), user_bias.npy, item_bias.npy, train_pairs.npy (the training ratings'"
         " user and item rows)\n"
      << app::kModelAppKey << " = " << app_name << "\nfactors = " << factors
      << "\nbiases = " << (biases ? "true" : "false")
      << "\nimplicit = " << (implicit ? "true" : "false")
      << "\nglobal_mean = " << app::format_double(global_mean) << "\nusers = " << users_aug.rows()
      << "\nitems = " << items_aug.rows() << "\n";
  ini.commit();
}

AlsModel load_als_model(const std::string& dir) {
  const std::string ini = dir + "/model.ini";
  if (!std::filesystem::is_regular_file(ini))
    throw InputError(
        ini, 0,
        "no model here (model.ini is missing); give the --out directory of a training run" +
            app::missing_model_hint(dir));
  if (const std::string owner = app::model_app(dir);
      !owner.empty() && owner != "fk-als" && owner != "fk-sfa")
    throw InputError(ini, 0,
                     "this is an " + owner +
                         " model; give the --out directory of an fk-als or "
                         "fk-sfa training run");
  const app::ResolvedConfig cfg = app::read_key_values(ini);
  if (!app::find_value(cfg, "biases"))
    throw InputError(ini, 0,
                     "not an fk-als model (no 'biases' key; another app's model?); give the --out "
                     "directory of an fk-als or fk-sfa training run");
  AlsModel m;
  auto flag = [&](const std::string& key) {
    const std::string v = required(cfg, key, ini);
    if (v != "true" && v != "false")
      throw InputError(ini, 0, "'" + key + "' must be true or false, found '" + v + "'");
    return v == "true";
  };
  m.biases = flag("biases");
  m.implicit = flag("implicit");
  {
    const std::string text = required(cfg, "global_mean", ini);
    char* end = nullptr;
    m.global_mean = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(m.global_mean))
      throw InputError(ini, 0, "'global_mean' must be a finite number, found '" + text + "'");
  }
  m.users = read_factors(dir + "/user_factors.npy");
  m.items = read_factors(dir + "/item_factors.npy");
  // model.ini's counts (older models may lack them) name the file that disagrees, where the
  // checks below could only blame the second of two files that differ.
  auto expect_rows = [&](const char* key, const char* file, std::int64_t rows) {
    const auto want = app::find_value(cfg, key);
    if (want && *want != std::to_string(rows))
      throw InputError(dir + "/" + file, 0,
                       "has " + std::to_string(rows) + " rows but model.ini says " + key + " = " +
                           *want + " (a file of another run, or one cut short?)");
  };
  expect_rows("users", "user_factors.npy", m.users.rows());
  expect_rows("items", "item_factors.npy", m.items.rows());
  check_finite(m.users, dir + "/user_factors.npy");
  check_finite(m.items, dir + "/item_factors.npy");
  if (m.users.cols() != m.items.cols())
    throw InputError(dir + "/item_factors.npy", 0,
                     "has " + std::to_string(m.items.cols()) +
                         " factors but user_factors.npy has " + std::to_string(m.users.cols()));
  const HostDense<float> ub = io::read_npy_f32(dir + "/user_bias.npy");
  const HostDense<float> ib = io::read_npy_f32(dir + "/item_bias.npy");
  if (ub.size() != m.users.rows())
    throw InputError(dir + "/user_bias.npy", 0,
                     "has " + std::to_string(ub.size()) + " entries for the " +
                         std::to_string(m.users.rows()) + " users of user_factors.npy");
  if (ib.size() != m.items.rows())
    throw InputError(dir + "/item_bias.npy", 0,
                     "has " + std::to_string(ib.size()) + " entries for the " +
                         std::to_string(m.items.rows()) + " items of item_factors.npy");
  check_finite(ub, dir + "/user_bias.npy");
  check_finite(ib, dir + "/item_bias.npy");
  m.user_bias = ub.values();
  m.item_bias = ib.values();
  m.user_ids = read_ids(dir + "/user_ids.csv", m.users.rows());
  m.item_ids = read_ids(dir + "/item_ids.csv", m.items.rows());
  const HostDense<std::int32_t> pairs = io::read_npy_i32(dir + "/train_pairs.npy");
  if (pairs.cols() != 2 && pairs.size() > 0)
    throw InputError(dir + "/train_pairs.npy", 0, "expected N x 2 pairs");
  HostCoo coo;
  coo.rows = m.users.rows();
  coo.cols = m.items.rows();
  for (std::int64_t j = 0; j < pairs.rows() && pairs.cols() == 2; ++j) {
    if (pairs(j, 0) < 0 || pairs(j, 0) >= coo.rows || pairs(j, 1) < 0 || pairs(j, 1) >= coo.cols)
      throw InputError(dir + "/train_pairs.npy", 0,
                       "pair " + std::to_string(j) + " is out of range");
    coo.row.push_back(pairs(j, 0));
    coo.col.push_back(pairs(j, 1));
  }
  m.rated = coo_to_csr(coo);
  m.rated.vals.clear();
  sort_columns(m.rated);
  return m;
}

namespace {
// Keeps the n best (score desc, index asc) of `all`.
std::vector<Scored> top_n(std::vector<Scored> all, int n) {
  auto better = [](const Scored& a, const Scored& b) {
    return a.score > b.score || (a.score == b.score && a.index < b.index);
  };
  const std::size_t keep =
      std::min<std::size_t>(all.size(), static_cast<std::size_t>(std::max(n, 0)));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(),
                    better);
  all.resize(keep);
  return all;
}
}  // namespace

std::vector<Scored> recommend(const AlsModel& m, std::int64_t user, int n) {
  FK_CHECK(user >= 0 && user < m.user_count(), "user index " << user << " out of range");
  const std::int64_t j0 = m.rated.row_ptr[user], j1 = m.rated.row_ptr[user + 1];
  const std::int32_t* rated = m.rated.col_idx.data();
  std::vector<Scored> all;
  all.reserve(static_cast<std::size_t>(m.item_count()));
  for (std::int64_t i = 0; i < m.item_count(); ++i) {
    if (std::binary_search(rated + j0, rated + j1, static_cast<std::int32_t>(i))) continue;
    all.push_back({i, m.score(user, i)});
  }
  return top_n(std::move(all), n);
}

ScoredList similar_for(const AlsModel& m, const std::string& item, const std::string& model_dir,
                       int n) {
  const std::int64_t i = m.item_index(item);
  if (i < 0) app::usage_fail("item", "item '" + item + "' is not in the model " + model_dir);
  ScoredList list(m.item_ids[i], similar_items(m, i, n));
  if (list.second.empty())
    log_warn() << "item '" << list.first << "' has no training ratings: no similar items";
  return list;
}

std::vector<ScoredList> recommend_for(const AlsModel& m, const std::vector<app::GivenId>& users,
                                      const std::string& model_dir, int n) {
  // One map, not a search per id: a --users-file may name every user of a large model.
  std::unordered_map<std::string, std::int64_t> index;
  for (std::size_t i = 0; i < m.user_ids.size(); ++i) index.emplace(m.user_ids[i], i);
  std::vector<std::int64_t> found;
  std::unordered_set<std::int64_t> seen;
  for (const app::GivenId& u : users) {
    const std::int64_t i = find_as_typed(u.id, [&](const std::string& id) -> std::int64_t {
      const auto it = index.find(id);
      return it == index.end() ? -1 : it->second;
    });
    if (i < 0)
      app::usage_fail(u.option, u.place + "user '" + u.id + "' is not in the model " + model_dir);
    if (!seen.insert(i).second)  // "1" and "1 " name one user
      app::usage_fail(u.option,
                      u.place + "'" + u.id + "' names user '" + m.user_ids[i] + "' again");
    found.push_back(i);
  }
  std::vector<ScoredList> lists;
  for (const std::int64_t i : found) {
    // A user without training ratings (one known from a --test file, an empty Matrix Market row)
    // has zero factors and bias, so every score is μ + b_i: the list ranks the items by their
    // biases alone, and where the model has none (no --biases, implicit) every item scores alike
    // and the "top" items were just the first ones of item_ids.csv, listed without a word.
    if (m.rated.row_ptr[i + 1] == m.rated.row_ptr[i]) {
      if (m.biases && !m.implicit) {
        log_warn() << "user '" << m.user_ids[i]
                   << "' has no training ratings: its list ranks the items by their biases alone";
      } else {
        log_warn() << "user '" << m.user_ids[i]
                   << "' has no training ratings: no recommendations (every item scores alike)";
        lists.emplace_back(m.user_ids[i], std::vector<Scored>{});
        continue;
      }
    }
    lists.emplace_back(m.user_ids[i], recommend(m, i, n));
  }
  return lists;
}

std::vector<Scored> similar_items(const AlsModel& m, std::int64_t item, int n) {
  FK_CHECK(item >= 0 && item < m.item_count(), "item index " << item << " out of range");
  const std::int64_t f = m.items.cols();
  auto norm = [&](std::int64_t i) {
    double s = 0;
    for (std::int64_t c = 0; c < f; ++c) s += double(m.items(i, c)) * m.items(i, c);
    return std::sqrt(s);
  };
  const double n0 = norm(item);
  std::vector<Scored> all;
  if (n0 == 0) return all;
  for (std::int64_t i = 0; i < m.item_count(); ++i) {
    if (i == item) continue;
    const double ni = norm(i);
    if (ni == 0) continue;
    double dot = 0;
    for (std::int64_t c = 0; c < f; ++c) dot += double(m.items(item, c)) * m.items(i, c);
    all.push_back({i, static_cast<float>(dot / (n0 * ni))});
  }
  return top_n(std::move(all), n);
}

void write_scored_lists(const std::string& dir, const std::string& file,
                        const std::vector<std::string>& header,
                        const std::vector<ScoredList>& lists, const AlsModel& model, bool quiet) {
  FK_CHECK(header.size() == 4, "a scored list has four columns, not " << header.size());
  app::ensure_output_dir(dir);
  io::CsvWriter csv(dir + "/" + file, header);
  std::ostringstream text;
  text << header[0] << ',' << header[1] << ',' << header[2] << ',' << header[3] << '\n';
  for (const auto& [who, top] : lists)
    for (std::size_t r = 0; r < top.size(); ++r) {
      const std::vector<std::string> row{who, std::to_string(r + 1), model.item_ids[top[r].index],
                                         app::fmt("%.6g", top[r].score)};
      csv.row(row);
      text << io::csv_escape(row[0]) << ',' << row[1] << ',' << io::csv_escape(row[2]) << ','
           << row[3] << '\n';
    }
  csv.commit();
  if (!quiet) std::cout << text.str() << std::flush;
}

}  // namespace fk::als
