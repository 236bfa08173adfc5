// The OpenCL subgraph backend on real models: ppocr_mobile_v2.0_cls and
// ppocr_v3_det (1x3x640x640) with places opencl,host equal the host run to
// 1e-4, a subgraph the converter refuses falls back to the host with the
// same outputs, and every activation with an OpenCL form equals the host.  Skips when the build has
// no OpenCL or the machine no OpenCL driver; a driver installed without a device fails.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "litegraph/backends/backends.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "passes/support_passes.hpp"
#include "support.hpp"

using namespace litegraph;

#if !defined(LITEGRAPH_WITH_OPENCL)
TEST_CASE("OpenCL backend: skipped, this build has no OpenCL") {
    MESSAGE("skipped: built without OpenCL (-DLITEGRAPH_OPENCL=OFF or no OpenCL headers/loader)");
}
#else

namespace {

/// Whether an OpenCL driver (an ICD) is registered on this machine: the
/// loader finds them as /etc/OpenCL/vendors/*.icd, or where OCL_ICD_VENDORS
/// points.
bool driver_installed() {
    if (std::getenv("OCL_ICD_VENDORS") != nullptr) return true;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/etc/OpenCL/vendors", ec))
        if (e.path().extension() == ".icd") return true;
    return false;
}

/// Skips (true: go on) only when no OpenCL driver is installed; a driver that
/// is there but gives no device is a broken installation, and fails.
bool have_device() {
    std::string why;
    if (backends::opencl::available(&why)) return true;
    if (!driver_installed()) {
        MESSAGE("skipped: no OpenCL driver installed (Debian: pocl-opencl-icd gives a CPU device): "
                << why);
        return false;
    }
    FAIL("an OpenCL driver is installed (/etc/OpenCL/vendors) but gives no device: " << why);
    return false;
}

struct run_result {
    std::vector<float> out;
    backends::partition_report report;
    std::vector<backends::fallback> fallbacks;
};

/// Loads `model`, runs the fusion passes, lets `edit` change the graph, then
/// runs it on the host only (places empty) or with `places`.
template <class Edit>
run_result run_model(const std::filesystem::path& dir, const shape_t& shape, const char* places,
                     Edit edit) {
    auto m = paddle::load(dir);
    passes::run_passes(m.graph);
    edit(m.graph);
    run_result r;
    std::unique_ptr<runtime::program> p;
    if (places) {
        backends::options o;
        o.places = backends::parse_places(places);
        r.report = backends::apply_places(m.graph, o);
        p = std::make_unique<runtime::program>(backends::make_program(std::move(m.graph), o));
    } else {
        p = std::make_unique<runtime::program>(std::move(m.graph));
    }
    p->set_input(0, test::random_tensor(shape, 11));
    p->run();
    r.fallbacks = backends::fallbacks(*p);
    auto s = p->output(0).span<float>();
    r.out.assign(s.begin(), s.end());
    return r;
}
const auto no_edit = [](graph::graph&) {};

void check_model(const char* name, const shape_t& shape) {
    auto dir = test::shared_model(name);
    if (dir.empty() || !have_device()) return;
    auto host = run_model(dir, shape, nullptr, no_edit);
    auto ocl = run_model(dir, shape, "opencl,host", no_edit);
    CHECK(ocl.fallbacks.empty());
    for (auto& f : ocl.fallbacks) MESSAGE("fallback: " << f.reason);
    REQUIRE(!ocl.report.subgraphs.empty());
    const double diff = test::max_abs_diff(ocl.out, host.out);
    MESSAGE(std::string(name) << ": " << ocl.report.subgraphs.size()
                              << " subgraph(s), ops on opencl "
                              << ocl.report.ops_per_place["opencl"] << ", on host "
                              << ocl.report.ops_per_place["host"]
                              << "; max |opencl - host| = " << diff);
    CHECK(diff <= 1e-4);
}

}  // namespace

TEST_CASE("ppocr_mobile_v2.0_cls with places opencl,host equals the host run") {
    check_model("ppocr_mobile_v2.0_cls", {1, 3, 48, 192});
}

TEST_CASE("ppocr_v3_det 1x3x640x640 with places opencl,host equals the host run") {
    check_model("ppocr_v3_det", {1, 3, 640, 640});
}

TEST_CASE("a new input shape rebuilds the OpenCL subgraphs (cls at two widths)") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty() || !have_device()) return;
    auto m = paddle::load(dir);
    passes::run_passes(m.graph);
    backends::options o;
    o.places = backends::parse_places("opencl,host");
    backends::apply_places(m.graph, o);
    auto p = backends::make_program(std::move(m.graph), o);
    for (std::int64_t w : {192, 320, 192}) {
        const shape_t shape{1, 3, 48, w};
        auto host = run_model(dir, shape, nullptr, no_edit);
        p.set_input(0, test::random_tensor(shape, 11));
        p.run();
        CHECK(backends::fallbacks(p).empty());
        auto s = p.output(0).span<float>();
        CHECK(test::max_abs_diff(std::vector<float>(s.begin(), s.end()), host.out) <= 1e-4);
    }
}

TEST_CASE("a subgraph the converter refuses falls back to the host with the same outputs") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty() || !have_device()) return;
    // An op the teller accepts but the converter refuses once it sees shapes
    // (an element-wise add of rank 7; the OpenCL kernel takes rank <= 6)
    // splits the classifier's chain: its subgraph falls back, the others run
    // on the device.  The add sits between two reshapes (host ops): the
    // first pool's output to rank 7, x + x, back to rank 4.
    auto add_rank7 = [](graph::graph& g) {
        for (auto& op : g.ops)
            if (op.type == "pool2d") {  // the first pool: after the stem
                const int out = graph::output_var(op, "Out");
                const shape_t shape = g.vars[out].shape;
                REQUIRE(shape.size() == 4);
                auto var = [&](const std::string& suffix) {
                    graph::var_node v;
                    v.name = g.vars[out].name + suffix;
                    return g.add_var(std::move(v));
                };
                const int r7 = var(".r7"), sum = var(".sum"), back = var(".r4");
                const int xs1 = var(".xs1"), xs2 = var(".xs2");
                for (auto& other : g.ops)
                    for (auto& s : other.inputs)
                        for (auto& v : s.vars)
                            if (v == out) v = back;
                auto reshape = [&](int x, int y, int xshape, const shape_t& to) {
                    graph::op_node r;
                    r.type = "reshape2";
                    r.inputs.push_back({"X", {x}});
                    r.outputs.push_back({"Out", {y}});
                    r.outputs.push_back({"XShape", {xshape}});
                    r.attrs.set("shape", to);
                    return r;
                };
                g.ops.push_back(reshape(out, r7, xs1, {0, shape[1], shape[2], shape[3], 1, 1, 1}));
                graph::op_node add;
                add.type = "elementwise_add";
                add.inputs.push_back({"X", {r7}});
                add.inputs.push_back({"Y", {r7}});
                add.outputs.push_back({"Out", {sum}});
                g.ops.push_back(std::move(add));
                g.ops.push_back(reshape(sum, back, xs2, {0, shape[1], shape[2], shape[3]}));
                g.relink();
                return;
            }
        FAIL("the classifier has no pool2d");
    };
    auto host = run_model(dir, {1, 3, 48, 192}, nullptr, add_rank7);
    auto ocl = run_model(dir, {1, 3, 48, 192}, "opencl,host", add_rank7);
    REQUIRE(ocl.fallbacks.size() == 1);
    CHECK(ocl.fallbacks[0].backend == "opencl");
    CHECK(ocl.fallbacks[0].reason.find("rank above 6") != std::string::npos);
    MESSAGE("fallback reason: " << ocl.fallbacks[0].reason);
    CHECK(ocl.report.subgraphs.size() >= 2);
    CHECK(test::max_abs_diff(ocl.out, host.out) <= 1e-4);
}

TEST_CASE("every OpenCL activation equals the host functor, alone and fused into a conv") {
    if (!have_device()) return;
    // One graph per activation of ops::opencl_activations: conv (+ bias) ->
    // act, and act alone on the conv's output, so the pass fuses one and
    // leaves the other standalone.
    int checked = 0;
    ops::any_functor(ops::opencl_activations{}, [&]<class F>() {
        INFO("activation " << F::paddle_type);
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {1, 3, 9, 9});
        for (const char* n : {"c", "cb", "y", "z"}) b.declare(n, {1, 4, 9, 9});
        test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1, -1.f, 1.f));
        test::param(b, "bias", test::random_tensor({4}, 2, -1.f, 1.f));
        b.feed("x", 0);
        b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
                 test::conv_attrs());
        attr_map axis;
        axis.set("axis", std::int32_t{1});
        b.add_op("elementwise_add", {{"X", {"c"}}, {"Y", {"bias"}}}, {{"Out", {"cb"}}}, axis);
        b.add_op(std::string(F::paddle_type), {{"X", {"cb"}}}, {{"Out", {"y"}}}, {});
        b.add_op(std::string(F::paddle_type), {{"X", {"y"}}}, {{"Out", {"z"}}}, {});
        b.fetch("z", 0);
        b.finish();
        passes::run_passes(g);
        REQUIRE(test::count_ops(g, "fused_conv2d") == 1);
        REQUIRE(test::count_ops(g, std::string(F::paddle_type)) == 1);
        const auto x = test::random_tensor({1, 3, 9, 9}, 5, -3.f, 3.f);
        runtime::program host{graph::graph(g)};
        host.set_input(0, x);
        host.run();
        backends::options o;
        o.places = backends::parse_places("opencl,host");
        auto report = backends::apply_places(g, o);
        auto ocl = backends::make_program(std::move(g), o);
        ocl.set_input(0, x);
        ocl.run();
        CHECK(backends::fallbacks(ocl).empty());
        CHECK(report.ops_per_place["host"] == 0);
        auto h = host.output(0).span<float>(), d = ocl.output(0).span<float>();
        CHECK(test::max_abs_diff(std::vector<float>(d.begin(), d.end()),
                                 std::vector<float>(h.begin(), h.end())) <= 1e-5);
        ++checked;
        return false;
    });
    CHECK(checked >= 7);  // at least the seven the fused conv kernels started with
}

#endif
