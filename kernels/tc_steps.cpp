#include "kernels/tc_steps.hpp"

#include <algorithm>
#include <deque>

namespace fk::tc {

std::int64_t tc_step_count(const HostVectorCsr& e) {
  std::int64_t steps = 0;
  for (std::int64_t br = 0; br < e.block_rows(); ++br)
    steps += (e.block_ptr[br + 1] - e.block_ptr[br] + kStepSlots - 1) / kStepSlots;
  return steps;
}

bool staged_indexes_fit(const HostVectorCsr& e) {
  return e.cols < 32767 && tc_step_count(e) * kStepSlots * e.v < (std::int64_t(1) << 31);
}

TcSteps deal_tc_steps(const HostVectorCsr& e) {
  TcSteps out;
  const std::int64_t block_rows = e.block_rows();
  out.step_ptr.reserve(static_cast<std::size_t>(block_rows + 1));
  out.slot_vector.reserve(static_cast<std::size_t>(e.vectors() + kStepSlots * block_rows));
  std::array<std::deque<std::int64_t>, kBankGroups> classes;
  for (std::int64_t br = 0; br < block_rows; ++br) {
    const std::int64_t first = e.block_ptr[br], end = e.block_ptr[br + 1];
    for (std::int64_t j = first; j < end; ++j) classes[e.col_idx[j] % kBankGroups].push_back(j);
    for (std::int64_t left = end - first; left > 0;) {
      std::array<std::int64_t, kStepSlots> slots;
      slots.fill(-1);
      for (int half = 0; half < kStepSlots / kGroupSlots; ++half) {
        // Fullest classes first, one vector each; another round only when fewer than eight
        // classes are left (then a conflict cannot be avoided).
        std::array<int, kBankGroups> order;
        for (int c = 0; c < kBankGroups; ++c) order[c] = c;
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return classes[a].size() > classes[b].size(); });
        int filled = 0;
        for (int round = 0; round < kGroupSlots && filled < kGroupSlots && left > 0; ++round)
          for (const int c : order) {
            if (filled == kGroupSlots || classes[c].empty()) continue;
            slots[half * kGroupSlots + filled++] = classes[c].front();
            classes[c].pop_front();
            --left;
          }
      }
      out.slot_vector.insert(out.slot_vector.end(), slots.begin(), slots.end());
    }
    out.step_ptr.push_back(out.steps());
  }
  return out;
}

std::int64_t conflicting_loads(const TcSteps& steps, const HostVectorCsr& e) {
  std::int64_t conflicts = 0;
  for (std::int64_t st = 0; st < steps.steps(); ++st)
    for (int half = 0; half < kStepSlots / kGroupSlots; ++half) {
      std::array<bool, kBankGroups> seen{};
      bool clash = false;
      for (int slot = half * kGroupSlots; slot < (half + 1) * kGroupSlots; ++slot) {
        const std::int64_t j = steps.slot_vector[st * kStepSlots + slot];
        if (j < 0) continue;
        bool& s = seen[e.col_idx[j] % kBankGroups];
        clash = clash || s;
        s = true;
      }
      conflicts += clash;
    }
  return conflicts;
}

}  // namespace fk::tc
