// `--places` on the CLI: the partition in run/info --json, fallbacks, the
// kernel per op, and subgraphs as DOT clusters.  The OpenCL parts skip when
// the CLI was built without OpenCL or finds no device.
#include <nlohmann/json.hpp>
#include <string>

#include "support.hpp"

using namespace litegraph;
using test::run_cli;

namespace {
std::string quote(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}
}  // namespace

TEST_CASE("--places host: every op gets a host kernel, conv ops the fast one") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    auto r = run_cli("run " + quote(dir) + " --places host --json");
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["partition"].empty());
    CHECK(j["fallbacks"].empty());
    REQUIRE(!j["op_implementations"].empty());
    for (auto& k : j["op_implementations"]) {
        CHECK(k["place"].get<std::string>().rfind("host", 0) == 0);
        if (k["op"].get<std::string>().rfind("fused_conv2d", 0) == 0)
            CHECK(k["kernel"] == "fused_conv2d.fast");
    }
    CHECK(run_cli("run " + quote(dir) + " --places gpu").code == 2);
    CHECK(run_cli("run " + quote(dir) + " --min-subgraph-size 2").code == 2);
    CHECK(run_cli("run " + quote(dir) + " --places host --min-subgraph-size 0").code == 2);
}

TEST_CASE("--places opencl,host: partition, fallbacks and clusters") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    auto info = run_cli("info " + quote(dir) + " --places opencl,host --json");
    if (info.code == 1 && info.out.find("no OpenCL backend") != std::string::npos) {
        MESSAGE("skipped: the CLI was built without OpenCL");
        return;
    }
    REQUIRE(info.code == 0);
    auto ji = nlohmann::json::parse(info.out);
    // The backbone, and the head's bias add between matmul and softmax (host).
    REQUIRE(ji["partition"].size() == 2);
    CHECK(ji["partition"][0]["backend"] == "opencl");
    CHECK(ji["partition"][1]["ops"].size() == 1);
    CHECK(ji["partition"][0]["ops"].size() + 1 == ji["ops_per_place"]["opencl"].get<std::size_t>());
    CHECK(!ji["refused"].empty());  // matmul, softmax and the int32 shape ops stay on host
    CHECK(ji["fallbacks"].empty());

    auto r = run_cli("run " + quote(dir) + " --places opencl,host --json");
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["partition"] == ji["partition"]);
    if (!j["fallbacks"].empty() &&
        j["fallbacks"][0]["reason"].get<std::string>().find("OpenCL") != std::string::npos) {
        MESSAGE("no OpenCL device: " << j["fallbacks"][0]["reason"].get<std::string>());
    } else {
        CHECK(j["fallbacks"].empty());
    }
    // Minimum sizes: 2 drops the single add, one above the backbone drops both.
    auto two = run_cli("info " + quote(dir) + " --places opencl,host --json --min-subgraph-size 2");
    REQUIRE(two.code == 0);
    CHECK(nlohmann::json::parse(two.out)["partition"].size() == 1);
    auto big =
        run_cli("info " + quote(dir) + " --places opencl,host --json --min-subgraph-size 1000");
    REQUIRE(big.code == 0);
    CHECK(nlohmann::json::parse(big.out)["partition"].empty());

    auto dot = run_cli("dot " + quote(dir) + " --places opencl,host");
    REQUIRE(dot.code == 0);
    CHECK(dot.out.find("subgraph cluster_op") != std::string::npos);
    CHECK(dot.out.find("opencl subgraph #0") != std::string::npos);
    CHECK(dot.out.find("host: softmax") != std::string::npos);
}
