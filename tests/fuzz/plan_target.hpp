// fuzz_plan: random buffer lifetimes, sizes, alignments, aliases, in-place
// links, pins and segment sets, planned by every planner algorithm; each plan
// is checked against the planner's validator and LOAD, and the exact search
// against the heuristics.  A violated property is a finding (`plan_finding`,
// not a litegraph::error: the target aborts on it).
#pragma once

#include "fuzz/byte_reader.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/planner/planner.hpp"

namespace litegraph::fuzz {

/// A property of a plan that does not hold: a bug (the target aborts).
struct plan_finding : std::logic_error {
    using std::logic_error::logic_error;
};

/// The planning problem an input decodes to.
struct plan_case {
    std::vector<planner::buffer> buffers;
    std::vector<planner::segment> segments;
};

/// Input layout: values read by `byte_reader` (integers from the end of the
/// bytes, as libFuzzer's FuzzedDataProvider reads them); a short input gives
/// a small problem.
inline plan_case decode_plan_case(std::string_view bytes) {
    byte_reader in(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    plan_case c;
    constexpr std::size_t alignments[] = {1, 4, 16, 64, 128};
    const int nseg = in.ConsumeIntegralInRange(1, 3);
    for (int s = 0; s < nseg; ++s) {
        planner::segment seg;
        seg.name = s == 0 ? "fast" : s == 1 ? "mid" : "slow";
        if (in.ConsumeBool()) seg.capacity = in.ConsumeIntegralInRange<std::size_t>(0, 1 << 16);
        seg.alignment = alignments[in.ConsumeIntegralInRange(0, 4)];
        c.segments.push_back(seg);
    }
    const int n = in.ConsumeIntegralInRange(1, 64);
    const int steps = in.ConsumeIntegralInRange(1, 48);
    for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
        planner::buffer b;
        const int size_class = in.ConsumeIntegralInRange(0, 7);
        b.size = size_class == 0   ? 0
                 : size_class == 7 ? in.ConsumeIntegralInRange<std::size_t>(0, std::size_t{1} << 30)
                                   : in.ConsumeIntegralInRange<std::size_t>(1, 4096);
        b.first = in.ConsumeIntegralInRange(0, steps - 1);
        b.last = in.ConsumeIntegralInRange(b.first, steps - 1);
        b.alignment = alignments[in.ConsumeIntegralInRange(0, 4)];
        const int kind = in.ConsumeIntegralInRange(0, 15);
        if (kind == 1 && i > 0) {  // a slice of an earlier buffer (concat in place)
            b.alias_of = in.ConsumeIntegralInRange(0, i - 1);
            const auto& parent = c.buffers[static_cast<std::size_t>(b.alias_of)];
            b.size = in.ConsumeIntegralInRange<std::size_t>(0, parent.size);
            b.alias_offset = in.ConsumeIntegralInRange<std::size_t>(0, parent.size - b.size);
            if (in.ConsumeIntegralInRange(0, 7) == 0)  // sometimes out of its parent: invalid
                b.alias_offset += in.ConsumeIntegralInRange<std::size_t>(1, 64);
        } else if (kind == 2 && i > 0) {  // overwrites an earlier buffer in place
            b.in_place_of = in.ConsumeIntegralInRange(0, i - 1);
            const auto& input = c.buffers[static_cast<std::size_t>(b.in_place_of)];
            if (in.ConsumeIntegralInRange(0, 7) != 0) {  // usually valid: starts as it dies
                b.first = std::max(b.first, input.last);
                b.last = std::max(b.last, b.first);
                b.size = std::min(b.size, input.size);
            }
        } else if (kind == 3) {
            b.pinned = in.ConsumeIntegralInRange(0, nseg);  // nseg: no such segment
        }
        c.buffers.push_back(b);
    }
    return c;
}

inline std::string describe(const plan_case& c) {
    std::ostringstream s;
    s << "segments:";
    for (auto& g : c.segments)
        s << " " << g.name << "(cap "
          << (g.capacity == planner::unbounded ? std::string("inf") : std::to_string(g.capacity))
          << ", align " << g.alignment << ")";
    s << "\nbuffers (size first last align pinned alias_of@offset in_place_of):\n";
    for (std::size_t i = 0; i < c.buffers.size(); ++i) {
        const auto& b = c.buffers[i];
        s << "  " << i << ": " << b.size << " " << b.first << " " << b.last << " " << b.alignment
          << " " << b.pinned << " " << b.alias_of << "@" << b.alias_offset << " " << b.in_place_of
          << "\n";
    }
    return s.str();
}

/// Plans `c` with every algorithm and checks:
///  - every algorithm agrees whether the problem is valid (the same `problem`);
///  - every plan passes `validate` (no two live buffers share bytes, pins,
///    alignment, capacity, aliases inside their parent, in-place order);
///  - a plan that fits uses at least LOAD bytes in total;
///  - with an unbounded segment and no pin, every plan fits;
///  - with one unbounded segment and at most 60 buffers, the exact search is
///    no larger than any heuristic (size_first_fit, strong_fit, tflm_greedy),
///    and the default planner no larger than the exact search.
inline void run_plan(std::string_view bytes) {
    const auto c = decode_plan_case(bytes);
    const std::span<const planner::buffer> b(c.buffers);
    const std::span<const planner::segment> segs(c.segments);
    auto fail = [&](const std::string& what) {
        throw plan_finding("fuzz_plan: " + what + "\n" + describe(c));
    };
    // Small budgets (1/40 and 1/100 of the defaults): an unfinished search
    // must still never lose to a heuristic, and an input runs in about a
    // millisecond instead of a hundred.
    const planner::exact_options exact_opt{60, 5000};
    planner::options opt;
    opt.exact = exact_opt;
    opt.strong.work_budget = 20000;
    const planner::plan plans[] = {
        planner::size_first_fit(b, segs),
        planner::strong_fit(b, segs, opt.strong),
        planner::exact_plan(b, segs, exact_opt, opt.strong),
        planner::plan_memory(b, segs, opt),
    };
    const bool invalid = !plans[0].problem.empty();
    for (auto& p : plans)
        if (p.problem.empty() == invalid)
            fail(std::string(p.algorithm) + " and size_first_fit disagree on the problem: '" +
                 std::string(p.problem) + "' vs '" + std::string(plans[0].problem) + "'");
    if (invalid) return;
    bool pinned = false, unbounded_seg = false;
    for (auto& x : c.buffers) pinned = pinned || x.pinned >= 0;
    for (auto& s : c.segments) unbounded_seg = unbounded_seg || s.capacity == planner::unbounded;
    const auto load = planner::lower_bound(b);
    for (auto& p : plans) {
        const auto v = planner::validate(b, segs, p);
        if (!v)
            fail(std::string(p.algorithm) + ": invalid plan: " + std::string(v.what) + " (buffer " +
                 std::to_string(v.buffer) + ", other " + std::to_string(v.other) + ")");
        if (p.fits && p.total() < load)
            fail(std::string(p.algorithm) + ": plan of " + std::to_string(p.total()) +
                 " bytes below LOAD " + std::to_string(load));
        if (unbounded_seg && !pinned && !p.fits)
            fail(std::string(p.algorithm) + ": does not fit although a segment is unbounded");
    }
    if (c.segments.size() != 1 || c.segments[0].capacity != planner::unbounded ||
        c.buffers.size() > exact_opt.max_items)
        return;
    const auto& exact = plans[2];
    const auto tflm = planner::tflm_greedy(b, c.segments[0].alignment);
    if (const auto v = planner::validate(b, segs, tflm); !v)
        fail("tflm_greedy: invalid plan: " + std::string(v.what));
    for (const auto* h : {&plans[0], &plans[1], &tflm})
        if (exact.total() > h->total())
            fail("exact_plan (" + std::to_string(exact.total()) + " bytes) above " +
                 std::string(h->algorithm) + " (" + std::to_string(h->total()) + ")");
    if (plans[3].total() > exact.total())
        fail("plan_memory (" + std::to_string(plans[3].total()) + " bytes) above exact_plan (" +
             std::to_string(exact.total()) + ")");
}

}  // namespace litegraph::fuzz
