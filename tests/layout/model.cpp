// An LSTNet-like forecaster (PaddleTS's LSTNet as Paddle 2.x exports it with
// data_format="NHWC") built with the writer both ways, channels last and
// channels first: written as .pdmodel / .pdiparams, loaded back, run by a
// session and by `litegraph run`; the two agree.
#include <filesystem>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/loader/paddle/writer.hpp"
#include "litegraph/session.hpp"
#include "passes/support_passes.hpp"
#include "scratch.hpp"

using namespace litegraph;

namespace {

constexpr std::int64_t N = 2, T = 12, F = 5, C = 6, K = 3, H = 7;
constexpr std::int64_t T2 = T - K + 1;

attr_map ints(const char* name, std::vector<std::int32_t> v) {
    attr_map a;
    a.set(name, v);
    return a;
}

/// The batch-first GRU both models end in: `in` transposed to [T, N, C] as
/// "seq", then one GRU layer (weights w_ih, w_hh, b_ih, b_hh, state h0) writing
/// "out" and "state".  `rows_first`: `in` is [N, T, C] (perm 1,0,2), else
/// [N, C, T] (perm 2,0,1).
void add_gru(graph::builder& b, const char* in, bool rows_first) {
    b.add_op("transpose2", {{"X", {in}}}, {{"Out", {"seq"}}, {"XShape", {"seq_xshape"}}},
             ints("axis", rows_first ? std::vector<std::int32_t>{1, 0, 2}
                                     : std::vector<std::int32_t>{2, 0, 1}));
    attr_map rnn;
    rnn.set("mode", std::string("GRU"));
    rnn.set("num_layers", std::int32_t{1});
    rnn.set("is_bidirec", false);
    rnn.set("hidden_size", static_cast<std::int32_t>(H));
    rnn.set("input_size", static_cast<std::int32_t>(C));
    rnn.set("dropout_prob", 0.f);
    rnn.set("is_test", true);
    b.add_op("rnn",
             {{"Input", {"seq"}},
              {"PreState", {"h0"}},
              {"WeightList", {"w_ih", "w_hh", "b_ih", "b_hh"}}},
             {{"Out", {"out"}}, {"State", {"state"}}}, rnn);
}

/// x [N, T, F] -> unsqueeze -> conv2d (K x F, C filters) + bias -> relu ->
/// squeeze -> [T', N, C] -> GRU (rnn, hidden H) -> last state [N, H] -> fc
/// -> y [N, F].  `nhwc`: the conv sees [N, T, F, 1] channels last (as LSTNet
/// exported NHWC); else [N, 1, T, F] channels first.  Same parameters.
graph::graph lstnet(bool nhwc) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, T, F});
    b.declare("x4", nhwc ? shape_t{-1, T, F, 1} : shape_t{-1, 1, T, F});
    b.declare("c", nhwc ? shape_t{-1, T2, 1, C} : shape_t{-1, C, T2, 1});
    b.declare("cb", nhwc ? shape_t{-1, T2, 1, C} : shape_t{-1, C, T2, 1});
    b.declare("r", nhwc ? shape_t{-1, T2, 1, C} : shape_t{-1, C, T2, 1});
    b.declare("s", nhwc ? shape_t{-1, T2, C} : shape_t{-1, C, T2});
    b.declare("seq", {T2, -1, C});
    b.declare("out", {T2, -1, H});
    b.declare("state", {1, -1, H});
    b.declare("last", {-1, H});
    b.declare("fc", {-1, F});
    b.declare("y", {-1, F});
    for (const char* n : {"x4_xshape", "s_xshape", "seq_xshape", "last_xshape"}) b.declare(n, {-1});
    test::param(b, "conv_w", test::random_tensor({C, 1, K, F}, 21));
    test::param(b, "conv_b", test::random_tensor({C}, 22));
    test::param(b, "h0", tensor(dtype::f32, {1, N, H}));
    test::param(b, "w_ih", test::random_tensor({3 * H, C}, 23, -0.5f, 0.5f));
    test::param(b, "w_hh", test::random_tensor({3 * H, H}, 24, -0.5f, 0.5f));
    test::param(b, "b_ih", test::random_tensor({3 * H}, 25, -0.5f, 0.5f));
    test::param(b, "b_hh", test::random_tensor({3 * H}, 26, -0.5f, 0.5f));
    test::param(b, "fc_w", test::random_tensor({H, F}, 27));
    test::param(b, "fc_b", test::random_tensor({F}, 28));
    b.feed("x", 0);
    b.add_op("unsqueeze2", {{"X", {"x"}}}, {{"Out", {"x4"}}, {"XShape", {"x4_xshape"}}},
             ints("axes", {nhwc ? 3 : 1}));
    auto conv = test::conv_attrs(1, 0);
    conv.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
    b.add_op("conv2d", {{"Input", {"x4"}}, {"Filter", {"conv_w"}}}, {{"Output", {"c"}}}, conv);
    attr_map add;
    add.set("axis", std::int32_t{nhwc ? -1 : 1});  // Paddle's channel_dim
    b.add_op("elementwise_add", {{"X", {"c"}}, {"Y", {"conv_b"}}}, {{"Out", {"cb"}}}, add);
    b.add_op("relu", {{"X", {"cb"}}}, {{"Out", {"r"}}}, {});
    b.add_op("squeeze2", {{"X", {"r"}}}, {{"Out", {"s"}}, {"XShape", {"s_xshape"}}},
             ints("axes", {nhwc ? 2 : 3}));
    add_gru(b, "s", nhwc);
    b.add_op("squeeze2", {{"X", {"state"}}}, {{"Out", {"last"}}, {"XShape", {"last_xshape"}}},
             ints("axes", {0}));
    attr_map mm;
    mm.set("trans_x", false);
    mm.set("trans_y", false);
    b.add_op("matmul_v2", {{"X", {"last"}}, {"Y", {"fc_w"}}}, {{"Out", {"fc"}}}, mm);
    attr_map add2;
    add2.set("axis", std::int32_t{-1});
    b.add_op("elementwise_add", {{"X", {"fc"}}, {"Y", {"fc_b"}}}, {{"Out", {"y"}}}, add2);
    b.fetch("y", 0);
    b.finish();
    return g;
}

/// PaddleTS's LSTNet convolves with nn.Conv1D(data_format="NLC"), which Paddle 2.x
/// exports as unsqueeze -> conv2d NHWC over [N, 1, L, C] with the filter
/// unsqueezed [OC, C, 1, K] -> squeeze -> bias add (axis -1) -> relu, then
/// the batch-first GRU as transpose2 -> rnn.  `nlc` false: the same network
/// as Conv1D NCL (conv2d NCHW over [N, C, 1, L]).
graph::graph lstnet_conv1d(bool nlc) {
    graph::graph g;
    graph::builder b(g);
    constexpr std::int64_t L2 = T - K + 1;
    b.declare("x", {-1, T, F});
    b.declare("xc", nlc ? shape_t{-1, T, F} : shape_t{-1, F, T});
    b.declare("x4", nlc ? shape_t{-1, 1, T, F} : shape_t{-1, F, 1, T});
    b.declare("w4", {C, F, 1, K});
    b.declare("c", nlc ? shape_t{-1, 1, L2, C} : shape_t{-1, C, 1, L2});
    b.declare("s", nlc ? shape_t{-1, L2, C} : shape_t{-1, C, L2});
    b.declare("sb", nlc ? shape_t{-1, L2, C} : shape_t{-1, C, L2});
    b.declare("r", nlc ? shape_t{-1, L2, C} : shape_t{-1, C, L2});
    b.declare("seq", {L2, -1, C});
    b.declare("out", {L2, -1, H});
    b.declare("state", {1, -1, H});
    for (const char* n : {"x4_xshape", "w4_xshape", "s_xshape", "seq_xshape", "xc_xshape"})
        b.declare(n, {-1});
    test::param(b, "conv_w", test::random_tensor({C, F, K}, 41));
    test::param(b, "conv_b", test::random_tensor({C}, 42));
    test::param(b, "h0", tensor(dtype::f32, {1, N, H}));
    test::param(b, "w_ih", test::random_tensor({3 * H, C}, 43, -0.5f, 0.5f));
    test::param(b, "w_hh", test::random_tensor({3 * H, H}, 44, -0.5f, 0.5f));
    test::param(b, "b_ih", test::random_tensor({3 * H}, 45, -0.5f, 0.5f));
    test::param(b, "b_hh", test::random_tensor({3 * H}, 46, -0.5f, 0.5f));
    b.feed("x", 0);
    // NCL takes the series channels first: [N, F, T].
    b.add_op("transpose2", {{"X", {"x"}}}, {{"Out", {"xc"}}, {"XShape", {"xc_xshape"}}},
             ints("axis",
                  nlc ? std::vector<std::int32_t>{0, 1, 2} : std::vector<std::int32_t>{0, 2, 1}));
    b.add_op("unsqueeze2", {{"X", {"xc"}}}, {{"Out", {"x4"}}, {"XShape", {"x4_xshape"}}},
             ints("axes", {nlc ? -3 : -2}));
    b.add_op("unsqueeze2", {{"X", {"conv_w"}}}, {{"Out", {"w4"}}, {"XShape", {"w4_xshape"}}},
             ints("axes", {-2}));
    attr_map conv;
    conv.set("strides", std::vector<std::int32_t>{1, 1});
    conv.set("paddings", std::vector<std::int32_t>{0, 0});
    conv.set("dilations", std::vector<std::int32_t>{1, 1});
    conv.set("groups", std::int32_t{1});
    conv.set("padding_algorithm", std::string("EXPLICIT"));
    conv.set("data_format", std::string(nlc ? "NHWC" : "NCHW"));
    b.add_op("conv2d", {{"Input", {"x4"}}, {"Filter", {"w4"}}}, {{"Output", {"c"}}}, conv);
    b.add_op("squeeze2", {{"X", {"c"}}}, {{"Out", {"s"}}, {"XShape", {"s_xshape"}}},
             ints("axes", {nlc ? -3 : -2}));
    attr_map add;
    add.set("axis", std::int32_t{nlc ? -1 : 1});
    b.add_op("elementwise_add", {{"X", {"s"}}, {"Y", {"conv_b"}}}, {{"Out", {"sb"}}}, add);
    b.add_op("relu", {{"X", {"sb"}}}, {{"Out", {"r"}}}, {});
    add_gru(b, "r", nlc);
    b.fetch("out", 0);
    b.fetch("state", 1);
    b.finish();
    return g;
}

tensor run_session(const std::filesystem::path& dir, const tensor& x, bool fuse) {
    session_options o;
    o.fuse = fuse;
    session s(dir, o);
    return s.run({{s.input_names().at(0), x}}).at(s.output_names().at(0));
}

}  // namespace

TEST_CASE("an LSTNet-like model written NHWC loads, runs and agrees with its NCHW build") {
    const auto nhwc_dir = test::scratch("lstnet_nhwc"), nchw_dir = test::scratch("lstnet_nchw");
    paddle::save(lstnet(true), nhwc_dir, "model");
    paddle::save(lstnet(false), nchw_dir, "model");
    REQUIRE(std::filesystem::exists(nhwc_dir / "model.pdiparams"));

    // The loader turned the NHWC conv into an NCHW one between transposes.
    auto m = paddle::load(nhwc_dir);
    int convs = 0;
    for (auto& op : m.graph.ops)
        if (op.type == "conv2d") {
            ++convs;
            CHECK(op.attrs.get<std::string>("data_format", "") == "NCHW");
        }
    CHECK(convs == 1);
    CHECK(test::count_ops(m.graph, "transpose2") == 3);  // the two borders and the model's own

    const tensor x = test::random_tensor({N, T, F}, 29);
    const tensor want = run_session(nchw_dir, x, true);
    REQUIRE(want.shape() == shape_t{N, F});
    for (bool fuse : {true, false}) {
        INFO("fuse " << fuse);
        const tensor y = run_session(nhwc_dir, x, fuse);
        REQUIRE(y.shape() == want.shape());
        CHECK(test::max_rel_diff(y.span<float>(), want.span<float>()) < 2e-4);
    }
    // Prepared, the region's transposes cancel: the conv's bias and relu fuse
    // as in the NCHW build and the outputs are the same bits.
    session_options o;
    auto g = m.graph;
    prepare(g, o);
    CHECK(test::count_ops(g, "elementwise_add") == 1);  // the fc's only
    const tensor y = run_session(nhwc_dir, x, true);
    CHECK(test::max_rel_diff(y.span<float>(), want.span<float>()) == 0.0);

    // `litegraph run` on the written folder.
    const auto io = test::scratch("lstnet_io");
    save_npy(io / "x.npy", x.ref());
    auto r =
        test::run_cli("run " + test::quoted(nhwc_dir) + " --input x=" + test::quoted(io / "x.npy") +
                      " --output-dir " + test::quoted(io / "out"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    const tensor cli = load_npy(io / "out" / "output_0.npy");
    REQUIRE(cli.shape() == want.shape());
    CHECK(test::max_rel_diff(cli.span<float>(), want.span<float>()) < 2e-4);
    for (auto& d : {nhwc_dir, nchw_dir, io}) std::filesystem::remove_all(d);
}

TEST_CASE("LSTNet's Conv1D NLC (conv2d NHWC over [N, 1, L, C]) agrees with Conv1D NCL") {
    const auto nlc_dir = test::scratch("conv1d_nlc"), ncl_dir = test::scratch("conv1d_ncl");
    paddle::save(lstnet_conv1d(true), nlc_dir, "model");
    paddle::save(lstnet_conv1d(false), ncl_dir, "model");
    const tensor x = test::random_tensor({N, T, F}, 47);
    for (bool fuse : {true, false}) {
        INFO("fuse " << fuse);
        session_options o;
        o.fuse = fuse;
        session a(nlc_dir, o), b(ncl_dir, o);
        auto ya = a.run({{"x", x}}), yb = b.run({{"x", x}});
        for (const char* name : {"out", "state"}) {
            INFO(name);
            REQUIRE(ya.at(name).shape() == yb.at(name).shape());
            CHECK(test::max_rel_diff(ya.at(name).span<float>(), yb.at(name).span<float>()) < 2e-4);
        }
    }
    for (auto& d : {nlc_dir, ncl_dir}) std::filesystem::remove_all(d);
}
