// A program built with the instruction-set table plus one row, the dummy slot
// sse41 (tests/isa_slot/CMakeLists.txt), and that row's unit sse41.cpp,
// nothing else (the other rows' units are not linked): the slot is named after its row, is the
// narrowest above the baseline, its unit's table is linked, LITEGRAPH_SIMD=sse41 chooses it, and
// forced, the SGEMM and convs run its kernels (SSE4.1 instructions, no FMA),
// which give the baseline's bits (SSE2, no FMA, the same sums in the same
// order).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

using namespace litegraph;
namespace simd = kernels::simd;

namespace {

// Under LITEGRAPH_SIMD=sse41 on a CPU without SSE4.1 (or a build that left
// the unit out), the test is skipped.
const bool env_checked = [] {
    if (!simd::check_env().empty()) {
        std::printf("skipped: %s\n", simd::check_env().c_str());
        std::exit(77);
    }
    return true;
}();

std::vector<float> random_vec(std::int64_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = d(gen);
    return v;
}

kernels::conv_geometry make(std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t oc,
                            std::int64_t k, std::int64_t groups) {
    kernels::conv_geometry g{1, c, h, w, oc,    k,     k,     0,     0,
                             1, 1, 1, 1, k / 2, k / 2, k / 2, k / 2, groups};
    g.oh = kernels::conv_geometry::out_size(h, k, 1, k / 2, k / 2, 1);
    g.ow = kernels::conv_geometry::out_size(w, k, 1, k / 2, k / 2, 1);
    return g;
}

// SGEMMs and convs (im2col, 1x1, depthwise) on the active slot.
std::vector<float> run_all() {
    std::vector<float> out;
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{7, 13, 5}, {24, 300, 96}, {33, 517, 257}}) {
        const auto a = random_vec(m * k, 1), b = random_vec(k * n, 2);
        std::vector<float> c(static_cast<std::size_t>(m * n));
        kernels::sgemm(m, n, k, a.data(), k, b.data(), n, kernels::store_epilogue{c.data(), n});
        out.insert(out.end(), c.begin(), c.end());
    }
    for (const auto& g :
         {make(16, 24, 48, 32, 1, 1), make(8, 17, 39, 12, 3, 1), make(12, 24, 96, 12, 3, 12)}) {
        const auto x = random_vec(g.n * g.c * g.h * g.w, 3);
        const auto w = random_vec(g.oc * (g.c / g.groups) * g.kh * g.kw, 4);
        std::vector<float> y(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow));
        kernels::conv2d(g, x.data(), w.data(), kernels::conv_store_epilogue(y.data(), g));
        out.insert(out.end(), y.begin(), y.end());
    }
    return out;
}

}  // namespace

TEST_CASE("the added row is a slot: named after its row, the narrowest, its unit linked") {
    CHECK(env_checked);
    CHECK(static_cast<int>(simd::isa::sse41) == 1);
    CHECK(simd::isa_name(simd::isa::sse41) == "sse41");
    CHECK(simd::known_names().rfind("sse2, sse41, ", 0) == 0);
    CHECK(simd::usable(simd::isa::sse41) == (LITEGRAPH_TEST_SSE41_BUILT && simd::cpu().sse41));
#if LITEGRAPH_TEST_SSE41_BUILT
    REQUIRE(simd::table_of(simd::isa::sse41) != nullptr);
    CHECK(simd::table_of(simd::isa::sse41) == &litegraph_simd_sse41);
#endif
    // The table's own rows have no unit in this program (CMakeLists.txt):
    // their weak tables are null, and the dispatch passes them over.
    for (int i = 2; i < simd::isa_count; ++i) {
        const auto s = static_cast<simd::isa>(i);
        CHECK(simd::table_of(s) == nullptr);
        CHECK_FALSE(simd::usable(s));
    }
    CHECK(simd::active() ==
          (simd::usable(simd::isa::sse41) ? simd::isa::sse41 : simd::isa::baseline));
}

TEST_CASE("LITEGRAPH_SIMD=sse41 chooses it") {
    const char* env = std::getenv("LITEGRAPH_SIMD");
    if (!env || std::string(env) != "sse41") return;
    CHECK(simd::check_env().empty());
    CHECK(simd::active() == simd::isa::sse41);
    CHECK(simd::active_name() == "sse41");
}

TEST_CASE("forced, it runs its kernels, which give the baseline's bits") {
    if (!simd::usable(simd::isa::sse41)) return;
    REQUIRE(simd::set_active(simd::isa::baseline));
    const auto base = run_all();
    REQUIRE(simd::set_active(simd::isa::sse41));
    CHECK(simd::active() == simd::isa::sse41);
    const auto got = run_all();
    simd::clear_active();
    CHECK(got == base);
    // Its tables are not the baseline's (which has none) nor another slot's.
    const simd::arch_table* t = simd::table_of(simd::isa::sse41);
    REQUIRE(t != nullptr);
    CHECK(t->gemm != nullptr);
    for (int i = 2; i < simd::isa_count; ++i)
        if (const auto* o = simd::table_of(static_cast<simd::isa>(i))) CHECK(o->gemm != t->gemm);
}
