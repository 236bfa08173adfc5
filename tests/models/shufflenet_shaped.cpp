// A classifier shaped as PaddleClas exports ShuffleNetV2 (random weights,
// fewer units per stage): conv 3x3 s2, max pool 3x3 s2 p1, units that split
// the channels in two (split), run one half through 1x1 / depthwise 3x3 / 1x1,
// concat the halves and shuffle the channels with reshape2 (batch from a
// shape -> slice ShapeTensor list, the rest fill_constant, as to_static
// writes x.shape[0]) -> transpose2 -> reshape2; stride-2 units with two
// branches; conv 1x1, adaptive average pool, flatten, fc (matmul_v2 + add),
// softmax. Also the fluid form of the shuffle (shuffle_channel).
// Checked: batch 1 and 3 at 224 and at 200x168; the fused program (batch
// norms folded, relus fused, concat written in place by its producers, the
// reshapes aliased) computes what the graph as loaded computes; the shuffle
// of the first unit equals a plain loop over the unfused unit's halves; each
// row is a distribution.
#include <filesystem>

#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "models/net_builder.hpp"

using namespace litegraph;

namespace models_shufflenet_shaped_test {

namespace {

std::string int_scalar(test::net_builder& nb, std::int32_t value) {
    auto v = nb.fresh("const");
    nb.b.declare(v, {1}, dtype::i32);
    attr_map a;
    a.set("shape", std::vector<std::int64_t>{1});
    a.set("dtype", std::int32_t{2});  // INT32
    a.set("value", float(value));
    nb.b.add_op("fill_constant", {}, {{"Out", {v}}}, a);
    return v;
}

/// channel_shuffle(x, 2) as PaddleClas writes it, or the fluid op.
std::string shuffle(test::net_builder& nb, const std::string& x, std::int64_t c, bool fluid_op) {
    if (fluid_op) {
        auto y = nb.declare_map("shuffled");
        attr_map a;
        a.set("group", std::int32_t{2});
        nb.b.add_op("shuffle_channel", {{"X", {x}}}, {{"Out", {y}}}, a);
        return y;
    }
    auto shape = nb.fresh("shape");
    nb.b.declare(shape, {4}, dtype::i32);
    nb.b.add_op("shape", {{"Input", {x}}}, {{"Out", {shape}}}, {});
    auto slice_of = [&](int k) {
        auto v = nb.fresh("dim");
        nb.b.declare(v, {1}, dtype::i32);
        attr_map a;
        a.set("axes", std::vector<std::int32_t>{0});
        a.set("starts", std::vector<std::int32_t>{k});
        a.set("ends", std::vector<std::int32_t>{k + 1});
        a.set("decrease_axis", std::vector<std::int32_t>{0});
        a.set("infer_flags", std::vector<std::int32_t>{1});
        nb.b.add_op("slice", {{"Input", {shape}}}, {{"Out", {v}}}, a);
        return v;
    };
    const auto batch = slice_of(0), h = slice_of(2), w = slice_of(3);
    auto to5 = nb.fresh("grouped");
    nb.b.declare(to5, {-1, 2, -1, -1, -1});
    auto xs = nb.fresh("xshape");
    nb.b.declare(xs, {0, -1, -1, -1, -1});
    attr_map a5;
    a5.set("shape", std::vector<std::int32_t>{});
    nb.b.add_op(
        "reshape2",
        {{"X", {x}},
         {"ShapeTensor",
          {batch, int_scalar(nb, 2), int_scalar(nb, static_cast<std::int32_t>(c / 2)), h, w}}},
        {{"Out", {to5}}, {"XShape", {xs}}}, a5);
    auto t = nb.fresh("swapped");
    nb.b.declare(t, {-1, -1, 2, -1, -1});
    auto ts = nb.fresh("xshape");
    nb.b.declare(ts, {0, -1, -1, -1, -1, -1});
    attr_map ta;
    ta.set("axis", std::vector<std::int32_t>{0, 2, 1, 3, 4});
    nb.b.add_op("transpose2", {{"X", {to5}}}, {{"Out", {t}}, {"XShape", {ts}}}, ta);
    auto y = nb.declare_map("shuffled");
    auto ys = nb.fresh("xshape");
    nb.b.declare(ys, {0, -1, -1, -1, -1, -1});
    attr_map a4;
    a4.set("shape", std::vector<std::int32_t>{});
    nb.b.add_op(
        "reshape2",
        {{"X", {t}}, {"ShapeTensor", {batch, int_scalar(nb, static_cast<std::int32_t>(c)), h, w}}},
        {{"Out", {y}}, {"XShape", {ys}}}, a4);
    return y;
}

struct unit_vars {
    std::string in, first_half, branch_out, out;
};

/// InvertedResidual (stride 1): split, branch on the second half, concat, shuffle.
unit_vars unit(test::net_builder& nb, const std::string& x, std::int64_t c, bool fluid_op) {
    const std::int64_t half = c / 2;
    auto x1 = nb.declare_map("half"), x2 = nb.declare_map("half");
    attr_map sa;
    sa.set("axis", std::int32_t{1});
    sa.set("num", std::int32_t{0});
    sa.set("sections", std::vector<std::int32_t>{static_cast<std::int32_t>(half),
                                                 static_cast<std::int32_t>(half)});
    nb.b.add_op("split", {{"X", {x}}}, {{"Out", {x1, x2}}}, sa);
    auto y = nb.conv_bn(x2, half, half, 1, 1, 0, 1, true);
    y = nb.conv_bn(y, half, half, 3, 1, 1, static_cast<int>(half), false);
    y = nb.conv_bn(y, half, half, 1, 1, 0, 1, true);
    auto cat = nb.concat({x1, y}, 1, 4);
    return {x, x1, y, shuffle(nb, cat, c, fluid_op)};
}

/// InvertedResidualDS (stride 2): two branches, concat, shuffle.
std::string unit_ds(test::net_builder& nb, const std::string& x, std::int64_t in_c,
                    std::int64_t out_c, bool fluid_op) {
    const std::int64_t half = out_c / 2;
    auto a = nb.conv_bn(x, in_c, in_c, 3, 2, 1, static_cast<int>(in_c), false);
    a = nb.conv_bn(a, in_c, half, 1, 1, 0, 1, true);
    auto b = nb.conv_bn(x, in_c, half, 1, 1, 0, 1, true);
    b = nb.conv_bn(b, half, half, 3, 2, 1, static_cast<int>(half), false);
    b = nb.conv_bn(b, half, half, 1, 1, 0, 1, true);
    return shuffle(nb, nb.concat({a, b}, 1, 4), out_c, fluid_op);
}

struct built {
    graph::graph g;
    unit_vars first;
};

built shufflenet_shaped(bool fluid_op) {
    built r;
    graph::builder gb(r.g);
    test::net_builder nb{gb};
    gb.declare("x", {-1, 3, -1, -1});
    gb.feed("x", 0);
    auto y = nb.conv_bn("x", 3, 24, 3, 2, 1, 1, true);
    auto pooled = nb.max_pool(y, 3, 2, 1, false);
    y = pooled;
    std::int64_t c = 24;
    bool first = true;
    for (std::int64_t out_c : {48, 96, 192}) {
        y = unit_ds(nb, y, c, out_c, fluid_op);
        c = out_c;
        auto u = unit(nb, y, c, fluid_op);
        if (first) r.first = u;
        first = false;
        y = u.out;
    }
    y = nb.conv_bn(y, c, 256, 1, 1, 0, 1, true);
    auto gap = nb.declare_map("gap");
    attr_map ga;
    ga.set("pooling_type", std::string("avg"));
    ga.set("ksize", std::vector<std::int32_t>{1, 1});
    ga.set("adaptive", true);
    gb.add_op("pool2d", {{"X", {y}}}, {{"Out", {gap}}}, ga);
    gb.declare("flat", {-1, 256});
    gb.declare("flat_xshape", {0, -1, -1, -1, -1});
    attr_map fa;
    fa.set("start_axis", std::int32_t{1});
    fa.set("stop_axis", std::int32_t{3});
    gb.add_op("flatten_contiguous_range", {{"X", {gap}}},
              {{"Out", {"flat"}}, {"XShape", {"flat_xshape"}}}, fa);
    test::param(gb, "fc_w", test::random_tensor({256, 10}, nb.seed++, -0.2f, 0.2f));
    test::param(gb, "fc_b", test::random_tensor({10}, nb.seed++, -0.2f, 0.2f));
    gb.declare("fc", {-1, 10});
    gb.declare("logits", {-1, 10});
    gb.declare("prob", {-1, 10});
    gb.add_op("matmul_v2", {{"X", {"flat"}}, {"Y", {"fc_w"}}}, {{"Out", {"fc"}}}, {});
    attr_map aa;
    aa.set("axis", std::int32_t{-1});
    gb.add_op("elementwise_add", {{"X", {"fc"}}, {"Y", {"fc_b"}}}, {{"Out", {"logits"}}}, aa);
    attr_map sa;
    sa.set("axis", std::int32_t{-1});
    gb.add_op("softmax", {{"X", {"logits"}}}, {{"Out", {"prob"}}}, sa);
    gb.fetch("prob", 0);
    gb.fetch(r.first.first_half, 1);
    gb.fetch(r.first.branch_out, 2);
    gb.fetch(r.first.out, 3);
    gb.finish();
    return r;
}

}  // namespace

TEST_CASE(
    "a ShuffleNetV2-shaped classifier: split, concat and channel shuffle through the "
    "passes") {
    for (bool fluid_op : {false, true}) {
        CAPTURE(fluid_op);
        auto net = shufflenet_shaped(fluid_op);
        auto fused = net.g;
        auto report = passes::run_passes(fused);
        CHECK(report.count("fold_batch_norm") > 0);
        runtime::program plain(net.g), fast(std::move(fused));
        for (const auto& s : std::vector<shape_t>{{1, 3, 224, 224}, {3, 3, 200, 168}}) {
            CAPTURE(to_string(s));
            const auto x = test::random_tensor(s, static_cast<std::uint32_t>(s[0] + s[2]));
            plain.set_input("x", x);
            fast.set_input("x", x);
            plain.run();
            fast.run();
            auto a = test::copy_outputs(plain), b = test::copy_outputs(fast);
            REQUIRE(a[0].shape() == shape_t{s[0], 10});
            for (std::size_t k = 0; k < a.size(); ++k) {
                CAPTURE(k);
                REQUIRE(b[k].shape() == a[k].shape());
                CHECK(test::max_rel_diff(b[k].span<float>(), a[k].span<float>()) <= 1e-4);
            }
            // Rows are distributions.
            for (std::int64_t n = 0; n < s[0]; ++n) {
                double sum = 0;
                for (std::int64_t j = 0; j < 10; ++j)
                    sum += a[0].span<float>()[static_cast<std::size_t>(n * 10 + j)];
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
            // The first unit's shuffle, by a plain loop: output channel 2j is
            // channel j of the first half, 2j+1 channel j of the branch.
            const auto& h1 = a[1];
            const auto& br = a[2];
            const auto& out = a[3];
            const auto half = h1.shape()[1], plane = h1.shape()[2] * h1.shape()[3];
            REQUIRE(out.shape()[1] == 2 * half);
            std::vector<float> expect;
            for (std::int64_t n = 0; n < s[0]; ++n)
                for (std::int64_t j = 0; j < half; ++j)
                    for (const auto* src : {&h1, &br}) {
                        const auto v = src->span<float>().subspan(
                            static_cast<std::size_t>((n * half + j) * plane),
                            static_cast<std::size_t>(plane));
                        expect.insert(expect.end(), v.begin(), v.end());
                    }
            CHECK(test::max_abs_diff(out.span<float>(), expect) == 0);
        }
    }
}

}  // namespace models_shufflenet_shaped_test
