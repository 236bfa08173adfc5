// Run-time instruction-set dispatch (kernels/simd.hpp): every path this
// program has and this CPU runs gives the same SGEMM, conv and depthwise
// results.  The paths with FMA (avx2, avx512; on aarch64 neon and
// neon-dotprod) sum in the same order (per output element, over K or over the
// taps, in one accumulator), so they agree bit for bit; the SSE2 baseline
// rounds each product (no FMA): within 1e-5.
// Each path is also compared with the plain loops by the other kernel tests,
// which ctest runs once per path (kernels/gemm@avx2 ...).
#include <doctest/doctest.h>

#include "random_vec.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/ops/activation.hpp"

using namespace litegraph;
namespace simd = kernels::simd;

namespace {

using kernel_test::random_vec;

kernels::conv_geometry make(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                            std::int64_t oc, std::int64_t kh, std::int64_t kw, std::int64_t s,
                            std::int64_t d, std::int64_t p, std::int64_t groups) {
    kernels::conv_geometry g{n, c, h, w, oc, kh, kw, 0, 0, s, s, d, d, p, p, p, p, groups};
    g.oh = kernels::conv_geometry::out_size(h, kh, d, p, p, s);
    g.ow = kernels::conv_geometry::out_size(w, kw, d, p, p, s);
    return g;
}

// The outputs of one path: several SGEMMs and convs, concatenated.
std::vector<float> run_all() {
    std::vector<float> out;
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{1, 1, 1},
                           {7, 13, 5},
                           {24, 300, 96},
                           {96, 190, 600},
                           {33, 517, 257}}) {
        const auto a = random_vec(m * k, 1), b = random_vec(k * n, 2);
        std::vector<float> c(static_cast<std::size_t>(m * n));
        kernels::sgemm(m, n, k, a.data(), k, b.data(), n, kernels::store_epilogue{c.data(), n});
        out.insert(out.end(), c.begin(), c.end());
        kernels::packed_a pa(m, k, a.data(), k);
        kernels::sgemm(pa, n, b.data(), n, kernels::store_epilogue{c.data(), n});
        out.insert(out.end(), c.begin(), c.end());
    }
    for (const auto& g :
         {make(2, 16, 24, 48, 32, 1, 1, 1, 1, 0, 1), make(1, 8, 17, 39, 12, 3, 3, 2, 1, 1, 1),
          make(1, 8, 15, 21, 8, 3, 3, 1, 1, 1, 2), make(2, 12, 24, 96, 12, 3, 3, 1, 1, 1, 12),
          make(1, 10, 23, 61, 10, 5, 5, 2, 1, 2, 10), make(1, 6, 19, 29, 6, 7, 7, 1, 2, 3, 6)}) {
        const auto x = random_vec(g.n * g.c * g.h * g.w, 3);
        const auto w = random_vec(g.oc * (g.c / g.groups) * g.kh * g.kw, 4);
        const auto bias = random_vec(g.oc, 5), scale = random_vec(g.oc, 6);
        std::vector<float> y(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow));
        kernels::conv2d(g, x.data(), w.data(), kernels::conv_store_epilogue(y.data(), g));
        out.insert(out.end(), y.begin(), y.end());
        const kernels::conv_weights cw(g, w.data());
        kernels::conv2d(g, x.data(), cw, kernels::conv_store_epilogue(y.data(), g));
        out.insert(out.end(), y.begin(), y.end());
        if (g.is_depthwise()) {
            kernels::depthwise_direct<ops::act::hard_swish> d;
            d.y = y.data();
            d.bias = bias.data();
            kernels::depthwise_conv2d_direct(g, x.data(), w.data(), d);
            out.insert(out.end(), y.begin(), y.end());
            kernels::depthwise_direct<ops::act::relu6> s;
            s.y = y.data();
            s.bias = bias.data();
            s.scale = scale.data();
            kernels::depthwise_conv2d_direct(g, x.data(), w.data(), s);
            out.insert(out.end(), y.begin(), y.end());
        }
    }
    return out;
}

}  // namespace

TEST_CASE("every SIMD path this CPU has gives the same kernel outputs") {
    std::vector<simd::isa> paths;
    for (int i = 0; i < simd::isa_count; ++i)
        if (simd::usable(static_cast<simd::isa>(i))) paths.push_back(static_cast<simd::isa>(i));
    std::string names;
    for (auto p : paths) names += simd::isa_name(p) + " ";
    MESSAGE("paths: " << names);
    REQUIRE(!paths.empty());
    std::vector<std::vector<float>> outs;
    for (auto p : paths) {
        REQUIRE(simd::set_active(p));
        CHECK(simd::active() == p);
        outs.push_back(run_all());
    }
    simd::clear_active();
    // A baseline with FMA (an AVX build, or NEON: aarch64's neon and
    // neon-dotprod paths) gives every path's bits.
    const std::string base = simd::default_arch::name();
    const bool fma0 = base.find("avx") != std::string::npos ||
                      base.find("fma") != std::string::npos ||
                      base.find("neon") != std::string::npos;
    for (std::size_t i = 1; i < paths.size(); ++i) {
        INFO(simd::isa_name(paths[0]) << " against " << simd::isa_name(paths[i]));
        REQUIRE(outs[i].size() == outs[0].size());
        int wrong = 0, differ = 0;
        for (std::size_t e = 0; e < outs[0].size(); ++e) {
            differ += outs[i][e] != outs[0][e];
            wrong += !(std::abs(outs[i][e] - outs[0][e]) <= 1e-5f * (1 + std::abs(outs[0][e])));
        }
        CHECK(wrong == 0);
        if (fma0) CHECK(differ == 0);
    }
    // The FMA paths agree bit for bit.
    for (std::size_t i = 1; i < paths.size(); ++i)
        for (std::size_t j = i + 1; j < paths.size(); ++j) {
            INFO(simd::isa_name(paths[i]) << " against " << simd::isa_name(paths[j]));
            CHECK(outs[i] == outs[j]);
        }
}

TEST_CASE("set_active refuses a path this program or CPU lacks, and active() follows it") {
    for (int i = 0; i < simd::isa_count; ++i) {
        const auto p = static_cast<simd::isa>(i);
        CHECK(simd::set_active(p) == simd::usable(p));
        if (simd::usable(p)) CHECK(simd::active() == p);
    }
    simd::clear_active();
    CHECK(simd::set_active(simd::isa::baseline));
    CHECK(simd::active_name() == simd::isa_name(simd::isa::baseline));
    simd::clear_active();
}

TEST_CASE("weights packed under one path keep its tile under another") {
    if (!simd::usable(simd::isa::avx512) && !simd::usable(simd::isa::avx2)) return;
    const std::int64_t m = 37, n = 70, k = 300;
    const auto a = random_vec(m * k, 7), b = random_vec(k * n, 8);
    REQUIRE(simd::set_active(simd::isa::baseline));
    const kernels::packed_a pa(m, k, a.data(), k);
    std::vector<float> c0(static_cast<std::size_t>(m * n)), c1(c0.size());
    kernels::sgemm(pa, n, b.data(), n, kernels::store_epilogue{c0.data(), n});
    REQUIRE(
        simd::set_active(simd::usable(simd::isa::avx512) ? simd::isa::avx512 : simd::isa::avx2));
    kernels::sgemm(pa, n, b.data(), n, kernels::store_epilogue{c1.data(), n});
    simd::clear_active();
    CHECK(pa.isa() == simd::isa::baseline);
    CHECK(c0 == c1);
}

TEST_CASE("the epilogue chains' vector loops are the same on every path") {
    // chain::emit runs the active unit's vectors, then the baseline's
    // vectors and the scalar tail: element-wise operations without FMA, so
    // every path gives the same bits, also for runs off the vector width.
    namespace ep = kernels::epilogue;
    const auto values = random_vec(203, 11), other = random_vec(203, 12);
    const auto bias = random_vec(4, 13), scale = random_vec(4, 14);
    auto run = [&] {
        std::vector<float> out;
        for (std::int64_t count : {1, 3, 4, 8, 15, 16, 17, 33, 203})
            for (bool scaled : {false, true}) {
                std::vector<float> y(static_cast<std::size_t>(count), NAN);
                const ep::bias b{bias.data(), scaled ? scale.data() : nullptr};
                ep::chain<ep::bias, ep::act<ops::act::hard_swish>>{{b, {}}}.emit(
                    y.data(), values.data(), count, ep::at{0, 2, 0});
                out.insert(out.end(), y.begin(), y.end());
                ep::chain<ep::bias, ep::add_with>{{b, {other.data()}}}.emit(y.data(), values.data(),
                                                                            count, ep::at{0, 1, 0});
                out.insert(out.end(), y.begin(), y.end());
                ep::chain<ep::bias, ep::gate<ops::act::hard_sigmoid, ep::mul_with>>{
                    {b, {{}, {other.data()}}}}
                    .emit(y.data(), values.data(), count, ep::at{0, 3, 0});
                out.insert(out.end(), y.begin(), y.end());
            }
        return out;
    };
    std::vector<float> first;
    for (int i = 0; i < simd::isa_count; ++i) {
        const auto p = static_cast<simd::isa>(i);
        if (!simd::set_active(p)) continue;
        INFO("path " << simd::isa_name(p));
        const auto out = run();
        // The scalar form of the same chains, element by element.
        std::vector<float> ref;
        const ops::act::hard_swish hs{};
        const ops::act::hard_sigmoid hg{};
        for (std::int64_t count : {1, 3, 4, 8, 15, 16, 17, 33, 203})
            for (bool scaled : {false, true})
                for (int c : {2, 1, 3})
                    for (std::int64_t e = 0; e < count; ++e) {
                        const float v =
                            scaled ? values[e] * scale[c] + bias[c] : values[e] + bias[c];
                        ref.push_back(c == 2 ? hs(v) : c == 1 ? v + other[e] : other[e] * hg(v));
                    }
        REQUIRE(out.size() == ref.size());
        int wrong = 0;
        for (std::size_t e = 0; e < out.size(); ++e) wrong += out[e] != ref[e];
        CHECK(wrong == 0);
        if (first.empty())
            first = out;
        else
            CHECK(out == first);
    }
    simd::clear_active();
}
