// Uniform floats in [-1, 1) from a fixed seed: the kernel tests' inputs.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace kernel_test {
inline std::vector<float> random_vec(std::int64_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = d(rng);
    return v;
}
}  // namespace kernel_test
