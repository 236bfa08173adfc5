// kernels::sgemm against a plain triple loop (in double), over ragged shapes:
// M, N, K off the micro-tile and block sizes, leading dims wider than the
// matrices, K spanning several K blocks; and the epilogue contract (every
// element exactly once, runs inside the matrix).
#include "litegraph/kernels/gemm.hpp"
#include "simd_path.hpp"

#include <doctest/doctest.h>

#include "random_vec.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace litegraph;

namespace {

using kernel_test::random_vec;

std::vector<double> ref_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                             std::int64_t lda, const float* b, std::int64_t ldb) {
    std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t p = 0; p < k; ++p)
            for (std::int64_t j = 0; j < n; ++j)
                c[i * n + j] += double(a[i * lda + p]) * double(b[p * ldb + j]);
    return c;
}

// Records each value and how many times each element was written.
struct counting_epilogue {
    std::int64_t m, n;
    std::vector<float>* out;
    std::vector<int>* hits;
    bool* out_of_range;
    void operator()(std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) const {
        if (row < 0 || row >= m || col0 < 0 || count <= 0 || col0 + count > n) {
            *out_of_range = true;
            return;
        }
        for (std::int64_t j = 0; j < count; ++j) {
            (*out)[row * n + col0 + j] = v[j];
            ++(*hits)[row * n + col0 + j];
        }
    }
};

void check_case(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t pad) {
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(pad);
    const std::int64_t lda = k + pad, ldb = n + pad;
    auto a = random_vec(m * lda, 1u + static_cast<std::uint32_t>(m * 31 + k));
    auto b = random_vec(std::max<std::int64_t>(k, 1) * ldb, 7u + static_cast<std::uint32_t>(n));
    const auto ref = ref_gemm(m, n, k, a.data(), lda, b.data(), ldb);

    std::vector<float> c(static_cast<std::size_t>(m * n), NAN);
    std::vector<int> hits(static_cast<std::size_t>(m * n), 0);
    bool bad = false;
    kernels::sgemm(m, n, k, a.data(), lda, b.data(), ldb, counting_epilogue{m, n, &c, &hits, &bad});
    CHECK_FALSE(bad);
    int wrong_hits = 0, wrong_values = 0;
    double worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        wrong_hits += hits[i] != 1;
        const double err = std::abs(double(c[i]) - ref[i]) / (1.0 + std::abs(ref[i]));
        worst = std::max(worst, std::isnan(c[i]) ? 1e9 : err);
        wrong_values += !(err <= 1e-4);
    }
    CHECK(wrong_hits == 0);
    CHECK(wrong_values == 0);
    CHECK(worst <= 1e-4);
}

}  // namespace

TEST_CASE("sgemm matches a plain loop on ragged shapes, each element written once") {
    for (std::int64_t m : {1, 5, 6, 8, 9, 17, 70})
        for (std::int64_t n : {1, 15, 16, 17, 33, 100, 513, 1030})
            for (std::int64_t k : {1, 7, 16, 257, 600}) {
                if (k > 300 && n > 600) continue;  // keep the reference loop fast
                check_case(m, n, k, 0);
            }
}

TEST_CASE("sgemm honours leading dimensions wider than the matrices") {
    for (std::int64_t pad : {1, 3, 16})
        for (auto [m, n, k] : {std::array<std::int64_t, 3>{7, 45, 19}, {33, 130, 300}, {9, 32, 8}})
            check_case(m, n, k, pad);
}

TEST_CASE("sgemm with K == 0 writes zeros once") {
    check_case(5, 37, 0, 0);
}

TEST_CASE("a packed A is reusable and store_epilogue writes into a strided C") {
    const std::int64_t m = 19, n = 77, k = 40, ldc = n + 5;
    auto a = random_vec(m * k, 3), b1 = random_vec(k * n, 4), b2 = random_vec(k * n, 5);
    kernels::packed_a pa(m, k, a.data(), k);
    CHECK(pa.rows() == m);
    CHECK(pa.cols() == k);
    for (const auto* b : {&b1, &b2}) {
        std::vector<float> c(static_cast<std::size_t>(m * ldc), -7.f);
        kernels::sgemm(pa, n, b->data(), n, kernels::store_epilogue{c.data(), ldc});
        const auto ref = ref_gemm(m, n, k, a.data(), k, b->data(), n);
        int wrong = 0, pad_touched = 0;
        for (std::int64_t i = 0; i < m; ++i) {
            for (std::int64_t j = 0; j < n; ++j)
                wrong += !(std::abs(c[i * ldc + j] - ref[i * n + j]) <=
                           1e-4 * (1 + std::abs(ref[i * n + j])));
            for (std::int64_t j = n; j < ldc; ++j) pad_touched += c[i * ldc + j] != -7.f;
        }
        CHECK(wrong == 0);
        CHECK(pad_touched == 0);
    }
}
