// The OpenCL subgraph backend on real models: ppocr_mobile_v2.0_cls and
// ppocr_v3_det (1x3x640x640) with places opencl,host equal the host run to
// 1e-4, and a subgraph the converter refuses falls back to the host with the
// same outputs.  Skips when the build has no OpenCL or the machine no OpenCL
// driver; a driver installed without a device fails.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "litegraph/backends/backends.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
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
    // A host op the teller accepts but the converter has no code for (tanh)
    // splits the classifier's chain: its subgraph falls back, the others run
    // on the device.
    auto add_tanh = [](graph::graph& g) {
        for (auto& op : g.ops)
            if (op.type == "pool2d") {  // the first pool: after the stem
                int out = graph::output_var(op, "Out");
                graph::var_node t;
                t.name = g.vars[out].name + ".tanh";
                t.shape = g.vars[out].shape;
                int tv = g.add_var(std::move(t));
                for (auto& other : g.ops)
                    for (auto& s : other.inputs)
                        for (auto& v : s.vars)
                            if (v == out) v = tv;
                graph::op_node th;
                th.type = "tanh";
                th.inputs.push_back({"X", {out}});
                th.outputs.push_back({"Out", {tv}});
                g.ops.push_back(std::move(th));
                g.relink();
                return;
            }
    };
    auto host = run_model(dir, {1, 3, 48, 192}, nullptr, add_tanh);
    auto ocl = run_model(dir, {1, 3, 48, 192}, "opencl,host", add_tanh);
    REQUIRE(ocl.fallbacks.size() == 1);
    CHECK(ocl.fallbacks[0].backend == "opencl");
    CHECK(ocl.fallbacks[0].reason.find("tanh") != std::string::npos);
    MESSAGE("fallback reason: " << ocl.fallbacks[0].reason);
    CHECK(ocl.report.subgraphs.size() >= 1);
    CHECK(test::max_abs_diff(ocl.out, host.out) <= 1e-4);
}

#endif
