// Patched stages (runtime/patches.hpp): random stages of convs (strided,
// dilated, depthwise, asymmetric and SAME padding), pools (max and exclusive
// average, ceil mode), activations, residual adds and fire-module concats
// give the same bytes tiled as untiled on every grid (untiled with the convs
// on their patch kernel, without Winograd; the default untiled run within
// Winograd's bar), and the patched program's plan validates.
#include "litegraph/runtime/patches.hpp"

#include <cstring>
#include <random>

#include "litegraph/passes/pipeline.hpp"
#include "litegraph/planner/validate.hpp"
#include "litegraph/quantize/ptq.hpp"
#include "support.hpp"

using namespace litegraph;

namespace runtime_patches_test {

namespace {

struct random_stage {
    graph::graph g;
    shape_t input;
    std::string output;
};

/// A random stage from `seed`: 2 to 6 layers on a 1 x C x H x W input, then
/// a 1x1 conv after the split so the stage is not the whole program.
random_stage make_stage(std::uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    random_stage s;
    graph::builder b(s.g);
    std::int64_t c = pick(1, 4), h = pick(9, 26), w = pick(9, 26);
    s.input = {1, c, h, w};
    b.declare("x", {-1, c, h, w});
    b.feed("x", 0);
    std::string cur = "x";
    int names = 0, params = 0;
    auto fresh = [&] {
        auto n = "t" + std::to_string(names++);
        b.declare(n, {-1});
        return n;
    };
    auto param = [&](const shape_t& shape) {
        auto n = "w" + std::to_string(params++);
        b.declare(test::param_var(n, shape, seed * 131 + static_cast<std::uint32_t>(params)));
        return n;
    };
    // Adds a conv from `in` (ci channels, ih x iw) and returns its output.
    auto conv = [&](const std::string& in, std::int64_t ci, std::int64_t co, int k, int stride,
                    std::vector<std::int32_t> pads, int dil, int groups, bool same,
                    std::int64_t& oh, std::int64_t& ow) {
        auto out = fresh();
        attr_map a;
        a.set("strides", std::vector<std::int32_t>{stride, stride});
        a.set("paddings", pads);
        a.set("dilations", std::vector<std::int32_t>{dil, dil});
        a.set("groups", std::int32_t{groups});
        if (same) a.set("padding_algorithm", std::string("SAME"));
        auto f = param({co, ci / groups, k, k});
        auto bias = param({co});
        b.add_op("conv2d", {{"Input", {in}}, {"Filter", {f}}}, {{"Output", {out}}}, a);
        auto biased = fresh();
        attr_map ea;
        ea.set("axis", std::int32_t{1});
        b.add_op("elementwise_add", {{"X", {out}}, {"Y", {bias}}}, {{"Out", {biased}}}, ea);
        const bool four = pads.size() == 4;
        const std::int64_t pt = pads[0], pb = four ? pads[1] : pads[0];
        const std::int64_t pl = four ? pads[2] : pads[1], pr = four ? pads[3] : pads[1];
        if (same) {
            oh = (oh + stride - 1) / stride, ow = (ow + stride - 1) / stride;
        } else {
            oh = (oh + pt + pb - dil * (k - 1) - 1) / stride + 1;
            ow = (ow + pl + pr - dil * (k - 1) - 1) / stride + 1;
        }
        return biased;
    };
    const int layers = pick(2, 6);
    for (int l = 0; l < layers; ++l) {
        const int kind = pick(0, 5);
        if (kind <= 1) {  // conv, maybe depthwise, then maybe relu
            int k = std::vector<int>{1, 3, 5}[static_cast<std::size_t>(pick(0, 2))];
            int stride = pick(1, 2), dil = k == 3 ? pick(1, 2) : 1;
            bool depthwise = pick(0, 3) == 0 && c > 1;
            // Now and then 16 or more channels, for the next 3x3 conv to
            // fit Winograd (which a patched stage's convs do not take).
            std::int64_t co = depthwise ? c : pick(0, 5) == 0 ? pick(16, 20) : pick(1, 6);
            bool same = pick(0, 5) == 0;
            std::vector<std::int32_t> pads;
            if (pick(0, 2) == 0)
                pads = {pick(0, k / 2 + 1), pick(0, k / 2 + 1), pick(0, k / 2), pick(0, k / 2 + 1)};
            else
                pads = {pick(0, k / 2), pick(0, k / 2)};
            std::int64_t oh = h, ow = w;
            const std::int64_t ext = dil * (k - 1) + 1;
            if (h < ext || w < ext) continue;
            auto out = conv(cur, c, co, k, stride, pads, dil, depthwise ? static_cast<int>(c) : 1,
                            same, oh, ow);
            if (oh < 2 || ow < 2) break;  // keep the random graph valid: stop here
            cur = out, c = co, h = oh, w = ow;
            if (pick(0, 1)) {
                auto r = fresh();
                b.add_op("relu", {{"X", {cur}}}, {{"Out", {r}}}, {});
                cur = r;
            }
        } else if (kind == 2) {  // pool
            int k = pick(2, 3), stride = pick(1, 2), pad = pick(0, 1);
            bool ceil = pick(0, 1), avg = pick(0, 2) == 0;
            if (h + 2 * pad < k + stride || w + 2 * pad < k + stride) continue;
            attr_map a;
            a.set("pooling_type", std::string(avg ? "avg" : "max"));
            a.set("ksize", std::vector<std::int32_t>{k, k});
            a.set("strides", std::vector<std::int32_t>{stride, stride});
            a.set("paddings", std::vector<std::int32_t>{pad, pad});
            a.set("ceil_mode", ceil);
            a.set("exclusive", true);
            auto out = fresh();
            b.add_op("pool2d", {{"X", {cur}}}, {{"Out", {out}}}, a);
            cur = out;
            auto size = [&](std::int64_t in) {
                return ceil ? (in - k + 2 * pad + stride - 1) / stride + 1
                            : (in - k + 2 * pad) / stride + 1;
            };
            h = size(h), w = size(w);
        } else if (kind == 3) {  // fire module: squeeze, two expands, concat
            std::int64_t sh = h, sw = w, e1h = h, e1w = w, e3h = h, e3w = w;
            const std::int64_t sq_c = pick(1, 3);
            auto sq = conv(cur, c, sq_c, 1, 1, {0, 0}, 1, 1, false, sh, sw);
            std::int64_t a_c = pick(1, 4), b_c = pick(1, 4);
            auto e1 = conv(sq, sq_c, a_c, 1, 1, {0, 0}, 1, 1, false, e1h, e1w);
            auto e3 = conv(sq, sq_c, b_c, 3, 1, {1, 1}, 1, 1, false, e3h, e3w);
            auto out = fresh();
            attr_map ca;
            ca.set("axis", std::int32_t{1});
            b.add_op("concat", {{"X", {e1, e3}}}, {{"Out", {out}}}, ca);
            cur = out, c = a_c + b_c;
        } else if (kind == 4) {  // residual: x + conv3x3(x)
            std::int64_t oh = h, ow = w;
            auto y = conv(cur, c, c, 3, 1, {1, 1}, 1, 1, false, oh, ow);
            auto out = fresh();
            attr_map ea;
            ea.set("axis", std::int32_t{-1});
            b.add_op("elementwise_add", {{"X", {cur}}, {"Y", {y}}}, {{"Out", {out}}}, ea);
            cur = out;
        } else {  // an activation
            auto out = fresh();
            b.add_op("sigmoid", {{"X", {cur}}}, {{"Out", {out}}}, {});
            cur = out;
        }
    }
    s.output = cur;
    std::int64_t oh = h, ow = w;
    auto tail = conv(cur, c, 2, 1, 1, {0, 0}, 1, 1, false, oh, ow);
    b.fetch(tail, 0);
    b.finish();
    return s;
}

std::vector<float> run(runtime::program& p, const tensor& x) {
    p.set_input(0, x);
    p.run();
    const auto& y = p.output(0);
    auto span = y.span<float>();
    return {span.begin(), span.end()};
}

/// `g` with every op on its patch kernel (ops/op.hpp: op_patch_kernel; a
/// float conv without Winograd), as a patched stage runs its layers: the
/// untiled program a patched one equals bit for bit.
graph::graph on_patch_kernels(graph::graph g) {
    for (auto& op : g.ops)
        if (const auto k = op_patch_kernel_of(runtime::op_table{}, op.type);
            !k.empty() && op.attrs.get<std::string>("litegraph_kernel", "fast") == "fast")
            op.attrs.set("litegraph_kernel", std::string(k));
    return g;
}

/// The default untiled run (3x3 convs of at least 16 channels on Winograd)
/// and `got`, a run on the patch kernels, differ by Winograd's rounding at
/// most: within its bar (kernels/conv_winograd.hpp) of 1 + |value|.  Returns
/// whether they differ at all (a conv of `g` ran Winograd).
bool check_near_default(const graph::graph& g, const tensor& x, const std::vector<float>& got) {
    runtime::program plain(g);
    const auto fast = run(plain, x);
    CHECK(test::max_rel_diff(got, fast) <= kernels::winograd_error_bar);
    return std::memcmp(got.data(), fast.data(), got.size() * sizeof(float)) != 0;
}

void check_plan(const runtime::program& p) {
    auto v = planner::validate(p.buffers(), p.segments(), p.plan());
    CHECK_MESSAGE(v.ok, v.what);
}

attr_map padded(int pad) {
    attr_map a;
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    return a;
}

attr_map max_pool_2x2() {
    attr_map a;
    a.set("pooling_type", std::string("max"));
    a.set("ksize", std::vector<std::int32_t>{2, 2});
    a.set("strides", std::vector<std::int32_t>{2, 2});
    return a;
}

/// `g` (fused) run untiled and patched as `req` says on `x`: the same bytes and
/// a valid plan; the choice and both LOADs.
struct patched_run {
    runtime::patch_choice choice;
    std::size_t untiled_load = 0, tiled_load = 0;
};
patched_run compare_patched(graph::graph g, const runtime::patch_request& req, const tensor& x) {
    passes::run_passes(g);
    // Every conv on its patch kernel, the ones the stage leaves out too.
    const auto defaults = g;
    g = on_patch_kernels(std::move(g));
    runtime::program plain(g);
    const auto want = run(plain, x);
    check_near_default(defaults, x, want);
    patched_run r;
    r.untiled_load = plain.memory().lower_bound_bytes;
    r.choice = runtime::patch_graph(g, req, {planner::segment{}});
    REQUIRE_MESSAGE(r.choice.found, r.choice.why);
    runtime::program tiled(std::move(g), {planner::segment{}}, runtime::patch_factory());
    const auto got = run(tiled, x);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
    check_plan(tiled);
    r.tiled_load = tiled.memory().lower_bound_bytes;
    return r;
}

/// Patches a copy of `g` on a `rows` x `cols` grid and, when a stage is found,
/// checks the tiled program's output equals `want` bit for bit and its plan
/// validates.  False when no stage was found (`why` says why).
bool tiled_equals(const graph::graph& g, const shape_t& input, const tensor& x,
                  const std::vector<float>& want, std::pair<int, int> grid,
                  std::string* why = nullptr) {
    auto copy = on_patch_kernels(g);  // the convs the stage leaves out too
    runtime::patch_request req;
    req.automatic = false;
    req.rows = grid.first, req.cols = grid.second;
    req.shapes["x"] = input;
    auto choice = runtime::patch_graph(copy, req, {planner::segment{}});
    if (!choice.found) {
        if (why) *why = choice.why;
        return false;
    }
    runtime::program tiled(std::move(copy), {planner::segment{}}, runtime::patch_factory());
    const auto got = run(tiled, x);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
    check_plan(tiled);
    return true;
}

}  // namespace

TEST_CASE("random stages: tiled on every grid equals untiled, bit for bit") {
    int patched = 0, winograd = 0;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        auto s = make_stage(seed);
        passes::run_passes(s.g);
        auto x = test::random_tensor(s.input, seed + 1000);
        runtime::program plain(on_patch_kernels(s.g));
        const auto want = run(plain, x);
        winograd += check_near_default(s.g, x, want);
        const int split = s.g.find_var(s.output);
        if (split < 0) continue;  // the passes renamed it away (fused into a conv)
        for (auto grid : {std::pair{2, 2}, std::pair{3, 1}, std::pair{1, 4}, std::pair{5, 3}}) {
            CAPTURE(seed);
            CAPTURE(grid.first);
            CAPTURE(grid.second);
            std::string why;
            if (!tiled_equals(s.g, s.input, x, want, grid, &why)) {
                MESSAGE("seed " << seed << ": " << why);
                continue;
            }
            ++patched;
        }
    }
    CHECK(patched >= 100);
    CHECK(winograd >= 3);  // stages whose untiled run took Winograd somewhere
    MESSAGE(patched << " patched programs; " << winograd << " stages with a Winograd conv");
}

TEST_CASE("random int8 stages (post-training quantized): tiled equals untiled, bit for bit") {
    int patched = 0, int8_layers = 0;
    for (std::uint32_t seed = 1; seed <= 40; ++seed) {
        auto s = make_stage(seed);
        std::vector<tensor> samples{test::random_tensor(s.input, seed + 2000),
                                    test::random_tensor(s.input, seed + 3000)};
        ptq::quantize(s.g, samples);
        passes::run_passes(s.g);  // quantize_int8 makes the int8 ops
        for (auto& op : s.g.ops) int8_layers += op.type.find("_int8") != std::string::npos ? 1 : 0;
        auto x = test::random_tensor(s.input, seed + 1000);
        runtime::program plain(on_patch_kernels(s.g));
        const auto want = run(plain, x);
        check_near_default(s.g, x, want);
        for (auto grid : {std::pair{2, 2}, std::pair{4, 3}}) {
            CAPTURE(seed);
            CAPTURE(grid.first);
            if (!tiled_equals(s.g, s.input, x, want, grid)) continue;
            ++patched;
        }
    }
    CHECK(patched >= 50);
    CHECK(int8_layers >= 80);
    MESSAGE(patched << " patched int8 programs, " << int8_layers << " int8 ops");
}

TEST_CASE("auto: the chosen stage lowers LOAD and stays within the MAC budget") {
    // x[1,3,64,64] -> conv3x3 s1 (16) relu -> pool 2x2 -> conv3x3 (8) -> conv1x1 (4)
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 64, 64});
    for (const char* n : {"a", "ar", "p", "c", "d"}) b.declare(n, {-1});
    b.declare(test::param_var("w0", {16, 3, 3, 3}, 1));
    b.declare(test::param_var("w1", {8, 16, 3, 3}, 2));
    b.declare(test::param_var("w2", {4, 8, 1, 1}, 3));
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}}, {{"Output", {"a"}}}, padded(1));
    b.add_op("relu", {{"X", {"a"}}}, {{"Out", {"ar"}}}, {});
    b.add_op("pool2d", {{"X", {"ar"}}}, {{"Out", {"p"}}}, max_pool_2x2());
    b.add_op("conv2d", {{"Input", {"p"}}, {"Filter", {"w1"}}}, {{"Output", {"c"}}}, padded(1));
    b.add_op("conv2d", {{"Input", {"c"}}, {"Filter", {"w2"}}}, {{"Output", {"d"}}}, {});
    b.fetch("d", 0);
    b.finish();
    runtime::patch_request req;  // auto, budget 1.3
    auto r = compare_patched(std::move(g), req, test::random_tensor({1, 3, 64, 64}, 7));
    CHECK(r.choice.mac_overhead <= 1.3);
    CHECK(r.choice.untiled_load_bytes == r.untiled_load);
    // The conv's 64x64x16 map (256 KiB) is never whole: LOAD at least halves.
    CHECK(r.tiled_load * 2 <= r.untiled_load);
    MESSAGE("LOAD " << r.untiled_load << " -> " << r.tiled_load << " (grid " << r.choice.rows_cols()
                    << ", stage " << r.choice.first_op << " .. " << r.choice.last_op << ", MACs x"
                    << r.choice.mac_overhead << ")");
}

TEST_CASE("--patches values: auto, NxM, and clear errors") {
    CHECK(runtime::parse_patch_request("auto").automatic);
    auto r = runtime::parse_patch_request("4x2");
    CHECK(!r.automatic);
    CHECK(r.rows == 4);
    CHECK(r.cols == 2);
    for (const char* bad : {"", "x", "4", "4x", "x4", "0x2", "4x2x1", "a4x2", "-1x2", "99999x2"})
        CHECK_THROWS_AS(runtime::parse_patch_request(bad), usage_error);
}

TEST_CASE("an op's patch trait is its layer kind in a stage") {
    using k = runtime::stage_layer::kind;
    auto kind = [](const std::string& t) { return runtime::patch_detail::kind_of(t); };
    // Declared by the op (ops/op.hpp: patch_kind), for each of its types.
    CHECK(kind(op_type<ops::conv2d>()) == k::conv);
    CHECK(kind(std::string(ops::conv2d::paddle_types[1])) == k::conv);  // depthwise_conv2d
    CHECK(kind(op_type<ops::pool2d>()) == k::pool);
    CHECK(kind(op_type<ops::pool2d_int8>()) == k::pool);
    CHECK(kind(op_type<ops::concat>()) == k::concat);
    CHECK(kind(op_type<ops::concat_int8>()) == k::concat);
    CHECK(kind(op_type<ops::scale>()) == k::point);
    CHECK(kind(op_type<ops::quantize_int8>()) == k::point);
    CHECK(kind(op_type<ops::dequantize_int8>()) == k::point);
    for (std::string_view t : ops::elementwise::paddle_types)
        CHECK(kind(std::string(t)) == k::point);
    for (std::string_view t : ops::elementwise_int8::paddle_types)
        CHECK(kind(std::string(t)) == k::point);
    // The fused convs take conv2d's; every activation functor's op is point-wise.
    CHECK(kind(op_type<first_op<fusion::fused_conv_ops>::type>()) == k::conv);
    CHECK(kind(op_type<first_op<fusion::fused_int8_ops>::type>()) == k::conv);
    CHECK(kind(op_type<ops::activation<ops::act::relu>>()) == k::point);
    CHECK(kind(op_type<ops::activation<ops::act::hard_swish>>()) == k::point);
    // No trait: the op ends a stage.
    CHECK(!kind(op_type<ops::softmax>()));
    CHECK(!kind(op_type<ops::reshape2>()));
    CHECK(!kind(op_type<ops::mul_int8>()));
    CHECK(!kind(std::string(runtime::patched_stage_type)));
    CHECK(!kind("no_such_op"));
    CHECK(op_patch_kind<ops::softmax>() == patch_kind::none);
    CHECK(op_patch_kind<ops::conv2d>() == patch_kind::conv);
}

TEST_CASE("a float conv on a patch runs without Winograd unless pinned otherwise") {
    // patch_attrs gives a conv on the default fast loops its patch kernel
    // (ops/op.hpp: op_patch_kernel, "gemm": the same sums wherever an output
    // sits); one pinned to the reference loops and the int8 convs keep theirs.
    runtime::stage_layer l;
    l.k = runtime::stage_layer::kind::conv;
    runtime::layer_tile tl;
    auto kernel_on_patch = [&](const std::string& type, const std::string& pinned) {
        graph::op_node node;
        node.type = type;
        if (!pinned.empty()) node.attrs.set("litegraph_kernel", pinned);
        return runtime::patch_attrs(node, l, tl).get<std::string>("litegraph_kernel", "none");
    };
    CHECK(kernel_on_patch(op_type<ops::conv2d>(), "") == "gemm");
    CHECK(kernel_on_patch(op_type<ops::conv2d>(), "fast") == "gemm");
    CHECK(kernel_on_patch(op_type<ops::conv2d>(), "reference") == "reference");
    CHECK(kernel_on_patch(op_type<first_op<fusion::fused_conv_ops>::type>(), "") == "gemm");
    CHECK(kernel_on_patch(op_type<first_op<fusion::fused_int8_ops>::type>(), "") == "none");
    CHECK(op_patch_kernel<ops::pool2d>().empty());
}

TEST_CASE("a stage that cannot be patched is refused with its reason") {
    // x -> conv -> adaptive average pool to 2x2 -> y: each output reads a quarter of the map.
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 2, 8, 8});
    for (const char* n : {"a", "y"}) b.declare(n, {-1});
    b.declare(test::param_var("w", {2, 2, 3, 3}, 1));
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"a"}}}, {});
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("adaptive", true);
    pa.set("ksize", std::vector<std::int32_t>{2, 2});
    b.add_op("pool2d", {{"X", {"a"}}}, {{"Out", {"y"}}}, pa);
    b.fetch("y", 0);
    b.finish();
    runtime::program p(g);
    p.set_input_shape(0, {1, 2, 8, 8});
    p.planned_arena_bytes();
    runtime::stage_desc d;
    auto why = runtime::describe_stage(
        p.graph(), p.graph().find_var("y"), [&](int v) -> const tensor_ref& { return p.var(v); },
        d);
    CHECK(why.find("globally") != std::string::npos);
    CHECK(runtime::describe_stage(
              p.graph(), p.graph().find_var("a"),
              [&](int v) -> const tensor_ref& { return p.var(v); }, d)
              .empty());
}

}  // namespace runtime_patches_test

namespace runtime_patches_test {

TEST_CASE("auto: a conv's map before a global pool runs in row bands, bit for bit") {
    for (bool max : {false, true}) {
        INFO(max);
        // x[1,4,24,24] -> conv3x3 (8) -> p pool 2x2 -> conv3x3 (64) relu -> global pool -> y
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {1, 4, 24, 24});
        for (const char* n : {"a", "p", "c", "cr", "y"}) b.declare(n, {-1});
        b.declare(test::param_var("w0", {8, 4, 3, 3}, 1));
        b.declare(test::param_var("w1", {64, 8, 3, 3}, 2));
        b.feed("x", 0);
        b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}}, {{"Output", {"a"}}}, padded(1));
        b.add_op("pool2d", {{"X", {"a"}}}, {{"Out", {"p"}}}, max_pool_2x2());
        b.add_op("conv2d", {{"Input", {"p"}}, {"Filter", {"w1"}}}, {{"Output", {"c"}}}, padded(1));
        b.add_op("relu", {{"X", {"c"}}}, {{"Out", {"cr"}}}, {});
        attr_map ga;
        ga.set("pooling_type", std::string(max ? "max" : "avg"));
        ga.set("global_pooling", true);
        ga.set("ksize", std::vector<std::int32_t>{1, 1});
        b.add_op("pool2d", {{"X", {"cr"}}}, {{"Out", {"y"}}}, ga);
        b.fetch("y", 0);
        b.finish();
        auto r = compare_patched(std::move(g), {}, test::random_tensor({1, 4, 24, 24}, 3));
        CHECK(r.choice.tail);
        CHECK(r.choice.tail_rows > 1);
        // The 64x12x12 float map (36 KiB) never exists whole.
        CHECK(r.tiled_load < 64 * 12 * 12 * 4);
        MESSAGE("LOAD " << r.untiled_load << " -> " << r.tiled_load << "; tail "
                        << r.choice.tail_first_op << " .. " << r.choice.tail_last_op << " in "
                        << r.choice.tail_rows << " bands, head " << r.choice.rows_cols());
    }
}

}  // namespace runtime_patches_test
