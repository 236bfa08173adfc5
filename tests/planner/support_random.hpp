// Random planner inputs for the property tests, from a fixed seed.
#pragma once

#include <cstdint>
#include <vector>

#include "litegraph/planner/order.hpp"

namespace plan_test {

using namespace litegraph::planner;

struct gen {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    int in(int lo, int hi) {
        return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
};

/// Random intervals: n buffers over `steps` steps, sizes multiples of 16.
inline std::vector<buffer> random_intervals(gen& g, int n, int steps) {
    std::vector<buffer> b(n);
    for (auto& x : b) {
        x.size = static_cast<std::size_t>(g.in(1, 64)) * 16;
        x.first = g.in(0, steps - 1);
        x.last = std::min(steps - 1, x.first + g.in(0, 3));
    }
    return b;
}

/// A random DAG with branches: each op reads 1-2 of the last `window` ops.
inline std::vector<op_node> random_dag(gen& g, int n, int window = 4) {
    std::vector<op_node> ops(n);
    for (int i = 0; i < n; ++i) {
        ops[i].output_bytes = static_cast<std::size_t>(g.in(1, 64)) * 16;
        if (i == 0) continue;
        int k = g.in(1, 2);
        for (int j = 0; j < k; ++j) ops[i].inputs.push_back(std::max(0, i - g.in(1, window)));
    }
    ops[n - 1].is_output = true;
    return ops;
}

inline std::vector<buffer> dag_buffers(gen& g, int n) {
    auto ops = random_dag(g, n);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    return buffers_for_order(ops, order);
}

}  // namespace plan_test
