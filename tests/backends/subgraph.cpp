// The subgraph detector on the guide's example, subgraph replacement, places
// and the kernel pick (no device needed: a test backend runs on the host;
// the Cortex-M DSP entries on the int8 PP-OCR classifier when the shared
// models are there).
#include <sstream>
#include <string>
#include <vector>

#include "litegraph/backends/backends.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/graph/dot.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "support.hpp"

using namespace litegraph;

namespace {

/// Ten ops Op1..Op10 (types "op1".."op10") over activations a..i:
///   Op1(x)->a  Op2(a)->b  Op3(b)->c  Op4(b,c)->d  Op5(d)->e  Op6(d)->f
///   Op7(e,f)->g  Op8(g)->h  Op9(h,e)->k  Op10(k)->out
/// Op2 feeds Op4 directly and through Op3: with Op3 unsupported, contracting
/// Op2 with Op4 would make a cycle through Op3, so Op2 stays alone.
graph::graph guide_example() {
    graph::graph g;
    graph::builder b(g);
    for (auto n : {"x", "a", "b", "c", "d", "e", "f", "g", "h", "k", "out"}) b.declare(n, {1, 4});
    b.feed("x", 0);
    auto op = [&](int i, std::vector<std::string> in, std::string out) {
        b.add_op("op" + std::to_string(i), {{"X", in}}, {{"Out", {out}}}, {});
    };
    op(1, {"x"}, "a");
    op(2, {"a"}, "b");
    op(3, {"b"}, "c");
    op(4, {"b", "c"}, "d");
    op(5, {"d"}, "e");
    op(6, {"d"}, "f");
    op(7, {"e", "f"}, "g");
    op(8, {"g"}, "h");
    op(9, {"h", "e"}, "k");
    op(10, {"k"}, "out");
    b.fetch("out", 0);
    b.finish();
    return g;
}

std::vector<bool> mark_all_but(const graph::graph& g, std::vector<std::string> unsupported) {
    std::vector<bool> m;
    for (auto& op : g.ops)
        m.push_back(std::find(unsupported.begin(), unsupported.end(), op.type) ==
                    unsupported.end());
    return m;
}

std::vector<std::vector<std::string>> types_of(const graph::graph& g,
                                               const std::vector<std::vector<int>>& groups) {
    std::vector<std::vector<std::string>> r;
    for (auto& grp : groups) {
        r.emplace_back();
        for (int op : grp) r.back().push_back(g.ops[op].type);
    }
    return r;
}

}  // namespace

TEST_CASE("the guide's example: Op1, Op3, Op10 unsupported give {Op2} and {Op4..Op9}") {
    auto g = guide_example();
    auto marked = mark_all_but(g, {"op1", "op3", "op10"});
    using V = std::vector<std::vector<std::string>>;
    CHECK(types_of(g, backends::detect_subgraphs(g, marked, 1)) ==
          V{{"op2"}, {"op4", "op5", "op6", "op7", "op8", "op9"}});
    CHECK(types_of(g, backends::detect_subgraphs(g, marked, 2)) ==
          V{{"op4", "op5", "op6", "op7", "op8", "op9"}});
    CHECK(backends::detect_subgraphs(g, marked, 7).empty());
}

TEST_CASE("the detector never contracts across an unmarked op on a second path") {
    // Without the reverse DFS, Op2 and Op4 would merge and the subgraph op
    // would both feed and read Op3: a cycle.  Every subgraph replaced must
    // leave an acyclic graph.
    auto g = guide_example();
    auto marked = mark_all_but(g, {"op1", "op3", "op10"});
    auto groups = backends::detect_subgraphs(g, marked, 1);
    backends::replace_subgraphs(g, groups, "test");
    CHECK_NOTHROW(g.topo_order());
    REQUIRE(g.ops.size() == 5);  // op1, subgraph{op2}, op3, subgraph{op4..op9}, op10
    CHECK(g.sub_blocks.size() == 2);
    // Everything marked, nothing blocks: one subgraph of all ten.
    auto g2 = guide_example();
    CHECK(backends::detect_subgraphs(g2, std::vector<bool>(10, true), 1).size() == 1);
    // Alternating marks on a chain give single-op subgraphs.
    auto g3 = guide_example();
    auto m3 = mark_all_but(g3, {"op2", "op4", "op6", "op8", "op10"});
    for (auto& s : backends::detect_subgraphs(g3, m3, 1)) CHECK(s.size() <= 2);
}

namespace {

/// A test backend that "converts" relu and elementwise_add (the engine runs
/// them on the host, counting runs) and refuses anything with attribute
/// refuse_me at conversion.
int builds = 0;  // engine builds, over all engines

struct counting_engine : backends::subgraph_engine {
    std::unique_ptr<runtime::program> prog;
    int* runs;
    explicit counting_engine(int* r) : runs(r) {}
    void build(const graph::graph& block, const runtime::program&) override {
        ++builds;
        for (auto& op : block.ops)
            if (op.attrs.has("refuse_me"))
                throw unsupported_error("op " + op.type + ": attribute refuse_me");
        prog = std::make_unique<runtime::program>(block);
    }
    void run(const std::vector<const tensor_ref*>& in,
             const std::vector<tensor_ref*>& out) override {
        ++*runs;
        for (std::size_t i = 0; i < in.size(); ++i) {
            tensor t(in[i]->type, in[i]->shape);
            std::memcpy(t.data(), in[i]->data, t.bytes());
            prog->set_input(i, std::move(t));
        }
        prog->run();
        for (std::size_t i = 0; i < out.size(); ++i)
            std::memcpy(out[i]->data, prog->output(i).data, prog->output(i).bytes());
    }
};
struct test_backend : backends::subgraph_backend {
    int* runs;
    explicit test_backend(int* r) : runs(r) {}
    std::string_view name() const override { return "testdev"; }
    backends::target where() const override { return backends::target::opencl; }
    std::string refuses(const graph::graph&, const graph::op_node& op) const override {
        return op.type == "relu" || op.type == "elementwise_add" ? "" : "type " + op.type;
    }
    std::unique_ptr<backends::subgraph_engine> make_engine() const override {
        return std::make_unique<counting_engine>(runs);
    }
};

/// x -> relu -> add(x) -> sigmoid -> relu -> add(sigmoid out) -> out
graph::graph small_net() {
    graph::graph g;
    graph::builder b(g);
    for (auto n : {"x", "r1", "a1", "s", "r2", "out"}) b.declare(n, {1, 3, 4, 4});
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"r1"}}}, {});
    b.add_op("elementwise_add", {{"X", {"r1"}}, {"Y", {"x"}}}, {{"Out", {"a1"}}}, {});
    b.add_op("sigmoid", {{"X", {"a1"}}}, {{"Out", {"s"}}}, {});
    b.add_op("relu", {{"X", {"s"}}}, {{"Out", {"r2"}}}, {});
    b.add_op("elementwise_add", {{"X", {"r2"}}, {"Y", {"s"}}}, {{"Out", {"out"}}}, {});
    b.fetch("out", 0);
    b.finish();
    return g;
}

std::vector<float> run_net(graph::graph g, const backends::options* o,
                           std::vector<backends::fallback>* fb = nullptr) {
    auto x = test::random_tensor({1, 3, 4, 4}, 7);
    std::unique_ptr<runtime::program> p;
    if (o) {
        backends::apply_places(g, *o);
        p = std::make_unique<runtime::program>(backends::make_program(std::move(g), *o));
    } else {
        p = std::make_unique<runtime::program>(std::move(g));
    }
    p->set_input(0, std::move(x));
    p->run();
    if (fb) *fb = backends::fallbacks(*p);
    auto s = p->output(0).span<float>();
    return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("subgraph ops run through their engine, or fall back to the host with a reason") {
    int runs = 0;
    backends::options o;
    o.places = backends::parse_places("opencl,host");
    o.subgraph_backends[backends::target::opencl] = std::make_shared<test_backend>(&runs);
    const auto expect = run_net(small_net(), nullptr);

    auto g = small_net();
    auto report = backends::apply_places(g, o);
    REQUIRE(report.subgraphs.size() == 2);
    CHECK(report.subgraphs[0].ops.size() == 2);
    CHECK(report.ops_per_place["testdev"] == 4);
    CHECK(report.ops_per_place["host"] == 1);
    std::vector<backends::fallback> fb;
    CHECK(run_net(small_net(), &o, &fb) == expect);
    CHECK(fb.empty());
    CHECK(runs == 2);

    // The converter refuses the second subgraph: it runs on the host, same outputs.
    auto refusing = small_net();
    refusing.ops[4].attrs.set("refuse_me", true);
    runs = 0;
    CHECK(run_net(std::move(refusing), &o, &fb) == expect);
    REQUIRE(fb.size() == 1);
    CHECK(fb[0].backend == "testdev");
    CHECK(fb[0].reason.find("refuse_me") != std::string::npos);
    CHECK(runs == 1);

    // min_subgraph_size 3 keeps none: everything on host kernels.
    o.min_subgraph_size = 3;
    auto g2 = small_net();
    CHECK(backends::apply_places(g2, o).subgraphs.empty());
}

TEST_CASE("places parse, and the implementation pick follows the user's order") {
    auto p = backends::parse_places("cortex_m_dsp/i8/nchw,host");
    REQUIRE(p.size() == 2);
    CHECK(p[0].where == backends::target::cortex_m_dsp);
    CHECK(p[0].prec == backends::precision::i8);
    CHECK(to_string(p[0]) == "cortex_m_dsp/i8/nchw");
    CHECK_THROWS_AS(backends::parse_places("gpu"), usage_error);
    CHECK_THROWS_AS(backends::parse_places("host,,opencl"), usage_error);
    CHECK_THROWS_AS(backends::parse_places("host/f16"), usage_error);

    // A device kernel for relu on an f32 place: chosen when its place comes
    // first, never when the place is not listed; host otherwise.
    auto reg =
        std::make_shared<backends::implementation_registry>(backends::host_implementations());
    int device_runs = 0;
    struct twice_relu : op_instance {
        int* n;
        explicit twice_relu(int* c) : n(c) {}
        void infer(op_io& io) override {
            io.output("Out").type = dtype::f32;
            io.output("Out").shape = io.input("X").shape;
        }
        void run(op_io& io) override {
            ++*n;
            auto x = io.input("X").span<float>();
            auto* y = io.output("Out").as<float>();
            for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] > 0 ? x[i] : 0.f;
        }
        bool folds_from_shapes() const noexcept override { return false; }
        std::string_view name() const noexcept override { return "relu.dsp"; }
    };
    // Registered for int8 too: an f32 op must not get it.
    reg->add(
        {"relu",
         {backends::target::cortex_m_dsp, backends::precision::i8, backends::data_layout::nchw},
         "relu.dsp_s8",
         nullptr,
         [&](const attr_map&) { return std::make_unique<twice_relu>(&device_runs); }});
    reg->add(
        {"relu",
         {backends::target::cortex_m_dsp, backends::precision::f32, backends::data_layout::nchw},
         "relu.dsp",
         nullptr,
         [&](const attr_map&) { return std::make_unique<twice_relu>(&device_runs); }});
    backends::options o;
    o.implementations = reg;
    o.places = backends::parse_places("cortex_m_dsp,host");
    const auto expect = run_net(small_net(), nullptr);
    auto g = small_net();
    auto report = backends::apply_places(g, o);
    CHECK(g.ops[0].attrs.get<std::string>("litegraph_pick", "") == "relu.dsp");
    CHECK(g.ops[0].attrs.get<std::string>("litegraph_place", "") == "cortex_m_dsp/f32/nchw");
    CHECK(g.ops[1].attrs.get<std::string>("litegraph_pick", "") == "elementwise_add");
    CHECK(report.ops_per_place["cortex_m_dsp/f32/nchw"] == 2);
    CHECK(report.ops_per_place["host"] == 3);
    CHECK(run_net(small_net(), &o) == expect);
    CHECK(device_runs == 2);
    // The DOT output names the pick.
    std::ostringstream dot;
    graph::write_dot(dot, g);
    CHECK(dot.str().find("relu.dsp") != std::string::npos);

    o.places = backends::parse_places("host,cortex_m_dsp");
    auto g2 = small_net();
    backends::apply_places(g2, o);
    CHECK(g2.ops[0].attrs.get<std::string>("litegraph_pick", "") == "relu");
    // An i8-only place never takes f32 ops.
    o.places = backends::parse_places("cortex_m_dsp/i8");
    auto g3 = small_net();
    backends::apply_places(g3, o);
    CHECK(g3.ops[0].attrs.get<std::string>("litegraph_pick", "") == "relu");
}

TEST_CASE("host conv ops pick the fast kernel unless pinned to the reference loops") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 2, 5, 5});
    b.declare(test::param_var("w", {3, 2, 3, 3}, 3));
    b.declare("y", {1, 3, 3, 3});
    b.declare("z", {1, 3, 3, 3});
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}}, {});
    attr_map pinned;
    pinned.set("litegraph_kernel", std::string("reference"));
    b.add_op("relu", {{"X", {"y"}}}, {{"Out", {"z"}}}, pinned);
    b.fetch("z", 0);
    b.finish();
    backends::options o;
    backends::apply_places(g, o);
    CHECK(g.ops[0].attrs.get<std::string>("litegraph_pick", "") == "conv2d.fast");
    g.ops[0].attrs.set("litegraph_kernel", std::string("reference"));
    backends::apply_places(g, o);
    CHECK(g.ops[0].attrs.get<std::string>("litegraph_pick", "") == "conv2d.reference");
    // Pinned to the fast loops without Winograd (a patched stage's convs): fast.
    g.ops[0].attrs.set("litegraph_kernel", std::string("gemm"));
    backends::apply_places(g, o);
    CHECK(g.ops[0].attrs.get<std::string>("litegraph_pick", "") == "conv2d.fast");
}

TEST_CASE("a subgraph rebuilds when an input shape changes, not otherwise") {
    int runs = 0;
    backends::options o;
    o.places = backends::parse_places("opencl,host");
    o.subgraph_backends[backends::target::opencl] = std::make_shared<test_backend>(&runs);
    auto g = small_net();
    backends::apply_places(g, o);
    auto p = backends::make_program(std::move(g), o);
    builds = 0;
    for (auto shape : {shape_t{1, 3, 4, 4}, shape_t{1, 3, 4, 4}, shape_t{2, 3, 5, 6}}) {
        auto x = test::random_tensor(shape, 3);
        // The same net on the host alone, for this shape.
        runtime::program host(small_net());
        host.set_input(0, x);
        host.run();
        p.set_input(0, std::move(x));
        p.run();
        CHECK(p.output(0).shape == shape);
        auto a = p.output(0).span<float>();
        auto b = host.output(0).span<float>();
        CHECK(std::vector<float>(a.begin(), a.end()) == std::vector<float>(b.begin(), b.end()));
    }
    CHECK(builds == 4);  // two subgraphs, built for 1x3x4x4 and again for 2x3x5x6
    CHECK(runs == 6);
}

TEST_CASE("cortex_m_dsp lists the DSP int8 conv, depthwise and fc kernels; outputs unchanged") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls_slim_quant");
    auto ref = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty() || ref.empty()) return;
    auto m = paddle::load(dir);
    passes::run_passes(m.graph);
    const auto x = load_npy(ref / "reference" / "input_n1.npy");
    auto run = [&](graph::graph g, const backends::options& o) {
        auto p = backends::make_program(std::move(g), o);
        p.set_input(0, x);
        p.run();
        auto y = p.output(0).span<float>();
        return std::vector<float>(y.begin(), y.end());
    };
    backends::options host;
    auto gh = m.graph;
    backends::apply_places(gh, host);
    const auto expect = run(gh, host);

    backends::options o;
    o.places = backends::parse_places("cortex_m_dsp,host");
    auto g = m.graph;
    auto report = backends::apply_places(g, o);
    int conv = 0, dw = 0, fc = 0, int8_ops = 0;
    for (auto& op : g.ops) {
        const auto pick = op.attrs.get<std::string>("litegraph_pick", "");
        const auto where = op.attrs.get<std::string>("litegraph_place", "");
        INFO(op.type << " -> " << pick << " on " << where);
        if (op.type == "fused_conv2d_int8") {
            ++int8_ops;
            const bool grouped = op.attrs.get<std::int32_t>("groups", 1) > 1;
            CHECK(pick == (grouped ? "fused_conv2d_int8.dsp_depthwise" : "fused_conv2d_int8.dsp"));
            (grouped ? dw : conv) += 1;
        } else if (op.type == "mul_int8") {
            ++int8_ops;
            CHECK(pick == "mul_int8.dsp_fc");
            ++fc;
        } else {  // float and the int8 ops without a DSP kernel stay on the host
            CHECK(where == "host");
        }
        if (pick.find(".dsp") != std::string::npos) CHECK(where == "cortex_m_dsp/i8/nchw");
    }
    MESSAGE("DSP picks: " << conv << " conv, " << dw << " depthwise, " << fc << " fc");
    CHECK(conv > 0);
    CHECK(dw > 0);
    CHECK(fc == 1);
    CHECK(report.ops_per_place["cortex_m_dsp/i8/nchw"] == int8_ops);
    std::ostringstream dot;
    graph::write_dot(dot, g);
    CHECK(dot.str().find("fused_conv2d_int8.dsp_depthwise") != std::string::npos);
    CHECK(dot.str().find("mul_int8.dsp_fc") != std::string::npos);
    // The same accumulators whichever int8 kernel runs: identical outputs.
    CHECK(run(g, o) == expect);

    // Host first: the DSP entries are never taken.
    o.places = backends::parse_places("host,cortex_m_dsp");
    auto g2 = m.graph;
    backends::apply_places(g2, o);
    for (auto& op : g2.ops)
        CHECK(op.attrs.get<std::string>("litegraph_pick", "").find(".dsp") == std::string::npos);
}
