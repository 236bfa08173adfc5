// The fast conv kernels behind fused_conv2d against the reference row loop
// (litegraph_kernel = "reference"; "gemm" too where the fast one is
// Winograd's) for every terminal, over 1x1, 3x3 s1/s2,
// depthwise 3x3/5x5 s1/s2, groups, asymmetric padding and batch 2; the
// depthwise conv in place of its input; every element written exactly once;
// the SE gate on 1, 2 and 3 threads.
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "support.hpp"

using namespace litegraph;
using namespace litegraph::fusion;

namespace {

struct geo {
    std::int64_t n, c, h, w, oc, kh, kw;
    int stride;
    std::vector<std::int32_t> pads;  // 2 or 4 values, as Paddle
    int groups;
};

std::string describe(const geo& g) {
    std::ostringstream s;
    s << "n" << g.n << " c" << g.c << " " << g.h << "x" << g.w << " oc" << g.oc << " k" << g.kh
      << "x" << g.kw << " s" << g.stride << " p";
    for (auto p : g.pads) s << p << ",";
    s << " g" << g.groups;
    return s.str();
}

attr_map attrs_of(const geo& g) {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{g.stride, g.stride});
    a.set("paddings", g.pads);
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{g.groups});
    return a;
}

std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t p0, std::int64_t p1, int s) {
    return (in + p0 + p1 - k) / s + 1;
}

/// Top, bottom, left, right from Paddle's 2 or 4 paddings.
std::array<std::int64_t, 4> pads_of(const geo& g) {
    const auto& p = g.pads;
    return {p[0], p.size() == 4 ? p[1] : p[0], p.size() == 4 ? p[2] : p[1],
            p.size() == 4 ? p[3] : p[1]};
}

shape_t out_shape(const geo& g) {
    const auto [pt, pb, pl, pr] = pads_of(g);
    return {g.n, g.oc, out_size(g.h, g.kh, pt, pb, g.stride),
            out_size(g.w, g.kw, pl, pr, g.stride)};
}

const std::vector<geo>& geometries() {
    static const std::vector<geo> all = {
        {1, 16, 12, 48, 24, 1, 1, 1, {0, 0}, 1},     // 1x1 (GEMM in place)
        {2, 8, 6, 10, 12, 1, 1, 1, {0, 0}, 1},       // 1x1, batch 2
        {1, 8, 9, 11, 6, 1, 1, 2, {0, 0}, 1},        // strided 1x1 (im2col)
        {1, 3, 24, 96, 16, 3, 3, 2, {1, 1}, 1},      // the stem: 3x3 s2
        {2, 8, 13, 21, 12, 3, 3, 1, {1, 1}, 1},      // 3x3 s1, batch 2
        {1, 64, 10, 10, 16, 3, 3, 1, {1, 1}, 1},     // K > one K block
        {2, 8, 12, 48, 8, 3, 3, 1, {1, 1}, 8},       // depthwise 3x3 s1
        {1, 8, 12, 48, 8, 3, 3, 2, {1, 1}, 8},       // depthwise 3x3 s2
        {1, 6, 11, 23, 6, 5, 5, 1, {2, 2}, 6},       // depthwise 5x5 s1
        {2, 6, 11, 23, 6, 5, 5, 2, {2, 2}, 6},       // depthwise 5x5 s2
        {1, 6, 9, 17, 6, 3, 3, 2, {0, 2, 1, 0}, 6},  // depthwise, asymmetric pads
        {1, 12, 10, 15, 18, 3, 3, 1, {1, 1}, 3},     // groups
        {2, 6, 7, 9, 4, 3, 3, 1, {0, 1, 2, 0}, 2},   // groups, asymmetric pads
    };
    return all;
}

/// Whether the fast kernels run g on the Winograd path (prepared weights).
bool on_winograd(const geo& g) {
    const auto o = out_shape(g);
    const auto [pt, pb, pl, pr] = pads_of(g);
    return kernels::winograd_fits({g.n, g.c, g.h, g.w, g.oc, g.kh, g.kw, o[2], o[3], g.stride,
                                   g.stride, 1, 1, pt, pb, pl, pr, g.groups});
}

/// The fast kernels' bar against the reference, relative to 1 + |value|: a
/// direct sum's 1e-4, or the Winograd path's (kernels/conv_winograd.hpp).
double bar(const geo& g) {
    return on_winograd(g) ? kernels::winograd_error_bar : 1e-4;
}

struct inputs {
    tensor x, f, b, other;
};

inputs make_inputs(const geo& g, const shape_t& other_shape, std::uint32_t seed) {
    inputs in;
    in.x = test::random_tensor({g.n, g.c, g.h, g.w}, seed);
    in.f = test::random_tensor({g.oc, g.c / g.groups, g.kh, g.kw}, seed + 1);
    in.b = test::random_tensor({g.oc}, seed + 2);
    in.other = test::random_tensor(other_shape, seed + 3);
    return in;
}

/// The fused conv with the kernel `kernel` ("reference", "gemm", or "" for
/// the default fast one).
tensor run_fused(attr_map a, const inputs& in, const std::string& activation,
                 const std::string& terminal, const std::string& kernel,
                 thread_pool* pool = nullptr) {
    a.set("stages", test::conv_stages(activation, terminal));
    if (!kernel.empty()) a.set("litegraph_kernel", kernel);
    named_tensors t;
    t.add("Input", in.x).add("Filter", in.f).add("Bias", in.b);
    if (terminal != "store") t.add("Other", in.other);
    return std::move(
        invoke<runtime::op_table>("fused_conv2d", a, t, {{"Output", 1}}, pool).slots[0].second[0]);
}

void compare(const geo& g, const std::string& activation, const std::string& terminal,
             const shape_t& other_shape) {
    INFO(describe(g) << " activation '" << activation << "' terminal " << terminal);
    auto in = make_inputs(g, other_shape, static_cast<std::uint32_t>(g.c * 31 + g.w));
    auto a = attrs_of(g);
    const auto fast = run_fused(a, in, activation, terminal, "");
    const auto ref = run_fused(a, in, activation, terminal, "reference");
    REQUIRE(fast.shape() == ref.shape());
    CHECK(test::max_rel_diff(fast.span<float>(), ref.span<float>()) < bar(g));
    if (on_winograd(g)) {  // without Winograd: a direct sum's rounding
        const auto gemm = run_fused(a, in, activation, terminal, "gemm");
        CHECK(test::max_rel_diff(gemm.span<float>(), ref.span<float>()) < 1e-4);
    }
}

}  // namespace

TEST_CASE("fused conv + bias (+ activation) matches the reference row loop") {
    for (const auto& g : geometries())
        for (std::string act : {"", "relu", "hard_swish", "leaky_relu", "sigmoid"})
            compare(g, act, "store", out_shape(g));
}

TEST_CASE("fused conv with add_with and mul_with terminals matches the reference") {
    for (const auto& g : geometries()) {
        compare(g, "", "add_with", out_shape(g));
        compare(g, "hard_sigmoid", "mul_with", out_shape(g));
        compare(g, "sigmoid", "mul_with", out_shape(g));
    }
}

TEST_CASE("the SE gate (mul_plane) matches the reference") {
    // The conv output is [N, C, 1, 1]: a 1x1 conv of the pooled tensor, or a
    // window covering the whole input.
    for (const auto& g :
         {geo{2, 16, 1, 1, 16, 1, 1, 1, {0, 0}, 1}, geo{1, 40, 1, 1, 40, 1, 1, 1, {0, 0}, 1},
          geo{2, 4, 3, 3, 6, 3, 3, 1, {0, 0}, 1}})
        for (std::string act : {"hard_sigmoid", "sigmoid"})
            compare(g, act, "mul_plane", {g.n, g.oc, 5, 7});
}

TEST_CASE("the SE gate split over 2 and 3 threads gives the one-thread bits") {
    // Enough plane products for the pool (run_plane_gate): the conv first,
    // then ranges of its values through the chain on the threads.
    for (const auto& g :
         {geo{1, 24, 1, 1, 96, 1, 1, 1, {0, 0}, 1}, geo{3, 40, 1, 1, 20, 1, 1, 1, {0, 0}, 1},
          geo{2, 4, 3, 3, 30, 3, 3, 1, {0, 0}, 1}})
        for (std::string act : {"hard_sigmoid", "sigmoid"}) {
            INFO(describe(g) << " activation " << act);
            auto in = make_inputs(g, {g.n, g.oc, 40, 41}, 7);
            const auto ref = run_fused(attrs_of(g), in, act, "mul_plane", "reference");
            std::vector<tensor> outs;
            for (unsigned t : {1u, 2u, 3u}) {
                thread_pool pool(t);
                outs.push_back(run_fused(attrs_of(g), in, act, "mul_plane", "", &pool));
                REQUIRE(outs.back().shape() == ref.shape());
                CHECK(test::max_rel_diff(outs.back().span<float>(), ref.span<float>()) < bar(g));
            }
            for (std::size_t i = 1; i < outs.size(); ++i)
                CHECK(std::memcmp(outs[0].data(), outs[i].data(),
                                  static_cast<std::size_t>(outs[0].bytes())) == 0);
        }
}

TEST_CASE("fused convs split over 2 and 3 threads give the one-thread bits") {
    // GEMM units even and uneven (a 40x40 plane: column blocks 512, 512, 512,
    // 64, which go to output channel ranges), im2col bands (8 channels),
    // Winograd blocks (24), batch 2, depthwise.
    for (const auto& g :
         {geo{1, 56, 40, 40, 84, 1, 1, 1, {0, 0}, 1}, geo{1, 16, 64, 64, 24, 1, 1, 1, {0, 0}, 1},
          geo{2, 16, 20, 20, 30, 1, 1, 1, {0, 0}, 1}, geo{1, 8, 37, 29, 18, 3, 3, 1, {1, 1}, 1},
          geo{1, 24, 37, 29, 18, 3, 3, 1, {1, 1}, 1},
          geo{1, 32, 40, 40, 32, 3, 3, 2, {1, 1}, 32}}) {
        INFO(describe(g));
        auto in = make_inputs(g, out_shape(g), 5);
        const auto ref = run_fused(attrs_of(g), in, "relu", "store", "reference");
        std::vector<tensor> outs;
        for (unsigned t : {1u, 2u, 3u}) {
            thread_pool pool(t);
            outs.push_back(run_fused(attrs_of(g), in, "relu", "store", "", &pool));
            REQUIRE(outs.back().shape() == ref.shape());
            CHECK(test::max_rel_diff(outs.back().span<float>(), ref.span<float>()) < bar(g));
        }
        for (std::size_t i = 1; i < outs.size(); ++i)
            CHECK(std::memcmp(outs[0].data(), outs[i].data(),
                              static_cast<std::size_t>(outs[0].bytes())) == 0);
    }
}

TEST_CASE("a depthwise fused conv runs in place of its input, fast and reference") {
    using F = fused<ops::conv2d, bias, act<ops::act::relu6>>;
    for (const auto& g :
         {geo{2, 8, 12, 48, 8, 3, 3, 1, {1, 1}, 8}, geo{1, 8, 12, 48, 8, 3, 3, 2, {1, 1}, 8},
          geo{2, 6, 11, 23, 6, 5, 5, 2, {2, 2}, 6}, geo{1, 6, 9, 17, 6, 3, 3, 2, {0, 2, 1, 0}, 6},
          geo{1, 3, 70, 130, 3, 3, 3, 1, {1, 1}, 3},  // several bands of output rows
          geo{2, 2, 81, 161, 2, 5, 5, 2, {2, 2}, 2}})
        for (bool reference : {false, true}) {
            INFO(describe(g) << (reference ? " reference" : " fast"));
            auto in = make_inputs(g, {1}, 77);
            auto a = attrs_of(g);
            a.set("stages", test::conv_stages("relu6"));
            const auto expect =
                run_fused(a, in, "relu6", "store", "reference");  // separate buffers

            if (reference) a.set("litegraph_kernel", std::string("reference"));
            auto p = F::parse(a, "fused_conv2d");
            tensor buf = in.x;  // input and output share this buffer
            tensor_ref xr = buf.ref("x"), fr = in.f.ref("f"), br = in.b.ref("b"), yr;
            yr.name = "y";
            op_io io;
            io.type = "fused_conv2d";
            io.inputs = {{"Input", {&xr}}, {"Filter", {&fr}}, {"Bias", {&br}}};
            io.outputs = {{"Output", {&yr}}};
            F::state st;
            F::infer(p, st, io);
            REQUIRE(yr.shape == expect.shape());
            yr.data = xr.data;
            F::run(p, st, io);
            const std::span<const float> got(reinterpret_cast<const float*>(yr.data),
                                             static_cast<std::size_t>(yr.numel()));
            CHECK(test::max_rel_diff(got, expect.span<float>()) < 1e-4);
        }
}

namespace {
struct counting_store {
    [[maybe_unused]] static constexpr bool is_terminal = true;
    [[maybe_unused]] static constexpr bool broadcasts = false;
    std::map<std::int64_t, int>* writes = nullptr;
    void write(float* out, const at& a, float v) const {
        ++(*writes)[a.index];
        out[a.index] = v;
    }
};
}  // namespace

TEST_CASE("the fast producer hands every output element to the chain exactly once") {
    for (const auto& g : geometries()) {
        INFO(describe(g));
        auto in = make_inputs(g, {1}, 5);
        const auto ys = out_shape(g);
        tensor out(dtype::f32, ys);
        std::map<std::int64_t, int> writes;
        auto p = ops::conv2d::parse(attrs_of(g), "conv2d");
        op_io io;
        tensor_ref xr = in.x.ref("x"), fr = in.f.ref("f");
        io.inputs = {{"Input", {&xr}}, {"Filter", {&fr}}};
        const auto geom = ops::conv2d::resolve(p, io);
        chain<bias, counting_store> ch{{bias{in.b.span<float>().data()}, counting_store{&writes}}};
        const std::int64_t plane = geom.oh * geom.ow;
        ops::conv2d::state st;
        ops::conv2d::produce(p, st, geom, in.x.span<float>().data(), in.f.span<float>().data(),
                             [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                                 std::int64_t count) {
                                 ch.emit(out.span<float>().data(), v, count,
                                         at{n, oc, (n * geom.oc + oc) * plane + off});
                             });
        CHECK(writes.size() == static_cast<std::size_t>(out.numel()));
        bool once = true, inside = true;
        for (auto& [i, k] : writes) once = once && k == 1, inside = inside && i < out.numel();
        CHECK(once);
        CHECK(inside);
    }
}

TEST_CASE("vector and scalar epilogues agree bit for bit, tail included") {
    // Values around every threshold of the piecewise activations, signed
    // zeros, infinities and NaN; runs of every length up to three vectors.
    std::vector<float> v = {0.f,     -0.f,    1e-30f,   -1e-30f, 3.f,      -3.f,      6.f,
                            -6.f,    2.5f,    -2.5f,    1.f,     -1.f,     0.5f,      -0.5f,
                            7.f,     -7.f,    100.f,    -100.f,  INFINITY, -INFINITY, NAN,
                            2.9999f, 3.0001f, -3.0001f, 5.9999f};
    for (int i = 0; i < 60; ++i) v.push_back(std::sin(0.37f * float(i)) * 8.f);
    const std::vector<float> b = {0.25f, -0.125f};
    std::vector<float> other(v.size());
    for (std::size_t i = 0; i < other.size(); ++i) other[i] = std::cos(0.1f * float(i));

    auto check = [&](auto vec_chain, const char* name) {
        INFO(name);
        using C = decltype(vec_chain);
#if !defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
        static_assert(C::vectorized);
#endif
        for (std::size_t count = 0; count <= v.size(); ++count) {
            std::vector<float> got(count, -1.f), expect(count, -1.f);
            vec_chain.emit(got.data(), v.data(), static_cast<std::int64_t>(count), at{0, 1, 0});
            for (std::size_t i = 0; i < count; ++i)
                vec_chain.write(expect.data(), at{0, 1, static_cast<std::int64_t>(i)}, v[i]);
            // Bit for bit, but for a NaN's sign and payload, which IEEE leaves
            // open and compilers do not keep (GCC folds sigmoid's 1 + exp(-x)
            // for a NaN x into 1 - x in the scalar form: the input's sign).
            std::size_t wrong = 0;
            for (std::size_t i = 0; i < count; ++i)
                wrong += std::memcmp(&got[i], &expect[i], sizeof(float)) != 0 &&
                         !(std::isnan(got[i]) && std::isnan(expect[i]));
            CHECK(wrong == 0);
        }
    };
    const bias bb{b.data()};
    check(chain<bias, act<ops::act::relu>>{{bb, {}}}, "relu");
    check(chain<bias, act<ops::act::relu6>>{{bb, {}}}, "relu6");
    check(chain<bias, act<ops::act::leaky_relu>>{{bb, {}}}, "leaky_relu");
    check(chain<bias, act<ops::act::hard_swish>>{{bb, {}}}, "hard_swish");
    check(chain<bias, act<ops::act::hard_sigmoid>>{{bb, {}}}, "hard_sigmoid");
    check(chain<bias, add_with>{{bb, add_with{other.data()}}}, "add_with");
    check(
        chain<bias, gate<ops::act::hard_sigmoid, mul_with>>{
            {bb, gate<ops::act::hard_sigmoid, mul_with>{{}, mul_with{other.data()}}}},
        "gate hard_sigmoid mul_with");
    // sigmoid: kernels::exp_ops in each lane, NaN kept (an unordered test on
    // every instruction set).
    check(chain<bias, act<ops::act::sigmoid>>{{bb, {}}}, "sigmoid");
    check(
        chain<bias, gate<ops::act::sigmoid, mul_with>>{
            {bb, gate<ops::act::sigmoid, mul_with>{{}, mul_with{other.data()}}}},
        "gate sigmoid mul_with");
    static_assert(!chain<bias, gate<ops::act::hard_sigmoid, mul_plane>>::vectorized);
}
