// The CLI as a user meets it: exit codes and messages of build/bin/litegraph
// on every shared model, on bad arguments and on broken models.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "litegraph/core/npy.hpp"
#include "scratch.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace litegraph;
using test::run_cli;

namespace {

using test::scratch;

std::string quote(const std::string& s) {
    return "'" + s + "'";
}

}  // namespace

TEST_CASE("every subcommand has --help") {
    for (const char* c : {"info", "run", "dot", "plan", "generate", "codegen", "quantize", "ops"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " --help");
        CHECK(r.code == 0);
        CHECK(r.out.find("usage: litegraph " + std::string(c)) != std::string::npos);
        CHECK(r.out.find("-h,--help") != std::string::npos);
        CHECK(run_cli(std::string(c) + " -h").out == r.out);
    }
    // Generated from the declarations: a shared option reads the same in every command.
    for (const char* c : {"run", "plan", "codegen", "quantize"}) {
        INFO(std::string(c));
        CHECK(run_cli(std::string(c) + " --help").out.find("--shape NAME=DIMS") !=
              std::string::npos);
    }
    for (const char* c : {"run", "info", "dot"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " --help");
        CHECK(r.out.find("--places P1,P2,...") != std::string::npos);
        CHECK(r.out.find("--min-subgraph-size N") != std::string::npos);
    }
    CHECK(run_cli("--help").code == 0);
    CHECK(run_cli("--help").out.find("quantize MODEL") != std::string::npos);
}

TEST_CASE("an unknown option or a bad value is named, exit 2, in every command") {
    for (const char* c : {"info", "run", "dot", "plan", "generate", "codegen", "quantize", "ops"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " --bogus");
        CHECK(r.code == 2);
        CHECK(r.out.find("--bogus") != std::string::npos);
    }
    const auto model = quote(test::shared_dir().string() + "/models/lenet_mnist");
    // The same option, validated the same way wherever it is taken (before the model loads).
    for (const char* c : {"run", "plan", "codegen -o x.hpp", "quantize -o x --calib-random 1"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " " + model + " --shape x=1,a");
        CHECK(r.code == 2);
        CHECK(r.out.find("--shape: bad dim 'a' in 'x=1,a'") != std::string::npos);
    }
    for (const char* c : {"run", "plan"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " " + model + " --precision fp16");
        CHECK(r.code == 2);
        CHECK(r.out.find("--precision") != std::string::npos);
        CHECK(r.out.find("fp16") != std::string::npos);
    }
    for (const char* c : {"plan", "codegen -o x.hpp"}) {
        INFO(std::string(c));
        auto r = run_cli(std::string(c) + " " + model + " --segments sram:12Q");
        CHECK(r.code == 2);
        CHECK(r.out.find("--segments") != std::string::npos);
        CHECK(r.out.find("sram:12Q") != std::string::npos);
    }
    auto r = run_cli("run " + model + " --repeat x");
    CHECK(r.code == 2);
    CHECK(r.out.find("--repeat") != std::string::npos);
    r = run_cli("run " + model + " --repeat");  // a value is missing
    CHECK(r.code == 2);
    CHECK(r.out.find("--repeat") != std::string::npos);
    r = run_cli("run " + model + " " + model);
    CHECK(r.code == 2);
    CHECK(r.out.find("not expected") != std::string::npos);
    r = run_cli("plan " + model + " --algorithm fastest");
    CHECK(r.code == 2);
    CHECK(r.out.find("--algorithm") != std::string::npos);
    r = run_cli("info --params p.pdiparams");
    CHECK(r.code == 2);
    CHECK(r.out.find("--params requires --model") != std::string::npos);
    r = run_cli("info " + model + " --model m.pdmodel");
    CHECK(r.code == 2);
    CHECK(r.out.find("not both") != std::string::npos);
    r = run_cli("info");
    CHECK(r.code == 2);
    CHECK(r.out.find("missing MODEL") != std::string::npos);
    r = run_cli("quantize " + model + " -o x --calib d --calib-random 2");
    CHECK(r.code == 2);
    CHECK(r.out.find("excludes") != std::string::npos);
    r = run_cli("quantize " + model + " -o x --calib-random 1 --percentile 0");
    CHECK(r.code == 2);
    CHECK(r.out.find("--percentile: expects a number in (0, 100], got '0'") != std::string::npos);
    r = run_cli("generate squeezenet1_1 -o x --input-size 8");
    CHECK(r.code == 2);
    CHECK(r.out.find("--input-size") != std::string::npos);
    CHECK(run_cli("generate").code == 2);
    CHECK(run_cli("ops extra").code == 2);
}

TEST_CASE("bad arguments give a message and a non-zero exit") {
    auto r = run_cli("frobnicate");
    CHECK(r.code == 2);
    CHECK(r.out.find("unknown command 'frobnicate'") != std::string::npos);
    r = run_cli("run --bogus x");
    CHECK(r.code == 2);
    CHECK(r.out.find("--bogus") != std::string::npos);
    r = run_cli("info /nonexistent/model");
    CHECK(r.code != 0);
    CHECK(r.out.find("/nonexistent/model") != std::string::npos);
    r = run_cli("generate squeezenet9 -o /tmp/x");
    CHECK(r.code == 2);
    r = run_cli("run " + quote(test::shared_dir().string() + "/models/lenet_mnist") +
                " --repeat 0");
    CHECK(r.code == 2);
    r = run_cli("run " + quote(test::shared_dir().string() + "/models/lenet_mnist") +
                " --shape x=1,2");
    CHECK(r.code == 2);
}

TEST_CASE("info exits 0 on every shared model folder") {
    for (const char* sub : {"models", "models_topology_only", "models_topology_only_pir"}) {
        auto dir = test::shared_dir() / sub;
        if (!fs::exists(dir)) {
            MESSAGE("skipped: " << dir.string() << " is absent");
            continue;
        }
        for (auto& e : fs::directory_iterator(dir)) {
            if (!e.is_directory()) continue;
            auto r = run_cli("info " + quote(e.path().string()) + " --json");
            INFO(e.path().string() << "\n" << r.out);
            CHECK(r.code == 0);
            if (r.code == 0) {
                auto j = nlohmann::json::parse(r.out);
                CHECK(j["op_count"].get<int>() > 0);
                CHECK(!j["feeds"].empty());
            }
        }
    }
}

TEST_CASE("run exits 0 on every shared model") {
    auto dir = test::shared_dir() / "models";
    if (!fs::exists(dir)) {
        MESSAGE("skipped: " << dir.string() << " is absent");
        return;
    }
    for (auto& e : fs::directory_iterator(dir)) {
        if (!e.is_directory()) continue;
        auto name = e.path().filename().string();
        auto r = run_cli("run " + quote(e.path().string()) + " --json");
        INFO(name << "\n" << r.out.substr(0, 2000));
        CHECK(r.code == 0);
        if (r.code == 0) {
            auto j = nlohmann::json::parse(r.out);
            CHECK(j["memory"]["arena_bytes"].get<std::size_t>() >=
                  j["memory"]["lower_bound_bytes"].get<std::size_t>());
            CHECK(!j["outputs"].empty());
        }
    }
}

TEST_CASE("run --lod feeds a LoD model; --json and --output-dir report an output's LoD") {
    auto textcnn = test::shared_model("textcnn_sequence_conv");
    auto yolo = test::shared_model("ppyolo_tiny_trash");
    if (textcnn.empty() || yolo.empty()) return;
    const auto words = quote((textcnn / "reference/input_words.npy").string());
    auto out = scratch("run-lod");
    auto r = run_cli("run " + quote(textcnn.string()) + " --input words=" + words +
                     " --lod words=0,7,8,19 --output-dir " + quote(out.string()) + " --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["outputs"][0]["shape"] == nlohmann::json({3, 200}));
    CHECK(!j["outputs"][0].contains("lod"));  // sequence_pool dropped the level
    CHECK(!fs::exists(out / "output_0_lod.npy"));

    // A LoD that does not end at the rows, a bad offset, an unknown feed: exit 2, named.
    r = run_cli("run " + quote(textcnn.string()) + " --input words=" + words +
                " --lod words=0,7,8,20");
    CHECK(r.code == 2);
    CHECK(r.out.find("ends at 20 but the tensor has 19 rows") != std::string::npos);
    r = run_cli("run " + quote(textcnn.string()) + " --lod words=0,x");
    CHECK(r.code == 2);
    CHECK(r.out.find("bad offset 'x'") != std::string::npos);
    r = run_cli("run " + quote(textcnn.string()) + " --lod nosuch=0,1");
    CHECK(r.code == 2);
    CHECK(r.out.find("no input named 'nosuch'") != std::string::npos);

    // The detector's rows carry the per-image LoD: in the JSON and beside the output.
    const auto ref = yolo / "reference";
    out = scratch("run-lod-yolo");
    r = run_cli("run " + quote(yolo.string()) +
                " --input image=" + quote((ref / "input_image.npy").string()) +
                " --input im_shape=" + quote((ref / "input_im_shape.npy").string()) +
                " --input scale_factor=" + quote((ref / "input_scale_factor.npy").string()) +
                " --output-dir " + quote(out.string()) + " --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    j = nlohmann::json::parse(r.out);
    CHECK(j["outputs"][0]["shape"] == nlohmann::json({3, 6}));
    CHECK(j["outputs"][0]["lod"] == nlohmann::json::parse("[[0,3]]"));
    REQUIRE(fs::exists(out / "output_0_lod.npy"));
    auto lod = load_npy(out / "output_0_lod.npy");
    CHECK(lod.type() == dtype::i64);
    CHECK(std::vector<std::int64_t>(lod.span<std::int64_t>().begin(),
                                    lod.span<std::int64_t>().end()) ==
          std::vector<std::int64_t>{0, 3});
    CHECK(!fs::exists(out / "output_1_lod.npy"));
}

TEST_CASE("run --output-dir writes output_<col>.npy that matches the reference") {
    auto model = test::shared_model("ppocr_mobile_v2.0_cls");
    if (model.empty()) return;
    auto out = scratch("run-output");
    auto r = run_cli("run " + quote(model.string()) +
                     " --input x=" + quote((model / "reference/input_n2.npy").string()) +
                     " --output-dir " + quote(out.string()) + " --json --repeat 3");
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["outputs"][0]["shape"] == nlohmann::json({2, 2}));
    CHECK(j["latency_ms"].get<double>() > 0);
    CHECK(fs::exists(out / "output_0.npy"));
}

TEST_CASE("generate writes a SqueezeNet that info and run accept") {
    for (const char* name : {"squeezenet1_0", "squeezenet1_1"}) {
        auto out = scratch(name);
        auto r = run_cli(std::string("generate ") + name + " -o " + quote(out.string()) +
                         " --input-size 64");
        INFO(r.out);
        REQUIRE(r.code == 0);
        r = run_cli("run " + quote(out.string()) + " --json");
        REQUIRE(r.code == 0);
        auto j = nlohmann::json::parse(r.out);
        CHECK(j["outputs"][0]["shape"] == nlohmann::json({1, 1000}));
    }
}

TEST_CASE("plan reports a plan against LOAD, and no peak when the segments are too small") {
    auto dir = scratch("plan_squeezenet");
    REQUIRE(run_cli("generate squeezenet1_1 -o " + quote(dir.string()) + " --input-size 32").code ==
            0);
    auto r = run_cli("plan " + quote(dir.string()) + " --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    REQUIRE(j["fits"].get<bool>());
    const auto load = j["lower_bound_bytes"].get<std::size_t>();
    const auto peak = j["peak_bytes"].get<std::size_t>();
    CHECK(peak >= load);
    CHECK(j["plan_over_load"].get<double>() >= 1.0);

    // Half of LOAD cannot hold it: exit 3, the shortfall named, and neither a
    // peak nor a plan / LOAD ratio (the bytes placed before it stopped are
    // below LOAD and read like a success).
    const std::string small = " --segments sram:" + std::to_string(load / 2);
    r = run_cli("plan " + quote(dir.string()) + small);
    INFO(r.out);
    CHECK(r.code == 3);
    CHECK(r.out.find("peak:         none: the activations do not fit") != std::string::npos);
    CHECK(r.out.find("plan / LOAD") == std::string::npos);
    CHECK(r.out.find("bytes short") != std::string::npos);
    r = run_cli("plan " + quote(dir.string()) + small + " --json");
    CHECK(r.code == 3);
    j = nlohmann::json::parse(
        r.out.substr(r.out.find('{'), r.out.rfind('}') - r.out.find('{') + 1));
    CHECK_FALSE(j["fits"].get<bool>());
    CHECK(j["peak_bytes"].is_null());
    CHECK(j["plan_over_load"].is_null());
    CHECK(j["shortfall_bytes"].get<std::size_t>() > 0);
    CHECK(j["placed_bytes"].get<std::size_t>() < load);
}

TEST_CASE(
    "plan and run --patches auto --input-dtype int8: SqueezeNet int8 at 128 in half the LOAD") {
    // docs/patches.md: the untiled LOADs are 315,520 B (1.1) and 443,648 B (1.0).
    for (const char* name : {"squeezenet1_1", "squeezenet1_0"}) {
        INFO(name);
        auto dir = scratch(std::string("patches_") + name);
        auto fp32 = quote((dir / "fp32").string()), q = quote((dir / "q").string());
        REQUIRE(
            run_cli(std::string("generate ") + name + " -o " + fp32 + " --input-size 128").code ==
            0);
        REQUIRE(run_cli("quantize " + fp32 + " -o " + q + " --calib-random 4").code == 0);
        auto r = run_cli("plan " + q + " --json");
        REQUIRE(r.code == 0);
        const auto untiled = nlohmann::json::parse(r.out.substr(r.out.find('{')));
        const auto svg = dir / "plan.svg";
        r = run_cli("plan " + q + " --input-dtype int8 --patches auto --json --svg " +
                    quote(svg.string()));
        INFO(r.out);
        REQUIRE(r.code == 0);
        const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
        const auto& p = j["patches"];
        // The per-patch buffers: inside the buffer holding the stage's scratch,
        // never two at once in the same bytes, each drawn twice by --svg (in
        // its holder and in the stage's own panel, labelled).
        REQUIRE(p["scratch_buffers"].size() >= 1);
        std::ifstream in(svg);
        const std::string drawn((std::istreambuf_iterator<char>(in)), {});
        std::size_t parts = 0;
        for (const auto& s : p["scratch_buffers"]) {
            std::size_t holder = 0;
            for (const auto& b : j["buffers"])
                if (b["name"] == s["buffer"]) holder = b["size"].get<std::size_t>();
            REQUIRE(holder > 0);
            const auto& ps = s["parts"];
            for (std::size_t a = 0; a < ps.size(); ++a) {
                const auto lo = ps[a]["offset"].get<std::size_t>(),
                           hi = lo + ps[a]["size"].get<std::size_t>();
                CHECK(hi <= holder);
                std::string label;  // as XML writes it: "a -> b" is "a -&gt; b"
                for (char c : ps[a]["name"].get<std::string>())
                    label += c == '>' ? std::string("&gt;") : std::string(1, c);
                CHECK(drawn.find(">" + label + "<") != std::string::npos);
                for (std::size_t b = a + 1; b < ps.size(); ++b) {
                    const bool together = ps[a]["first_layer"] <= ps[b]["last_layer"] &&
                                          ps[b]["first_layer"] <= ps[a]["last_layer"];
                    const auto blo = ps[b]["offset"].get<std::size_t>(),
                               bhi = blo + ps[b]["size"].get<std::size_t>();
                    CHECK_FALSE((together && lo < bhi && blo < hi));
                }
            }
            parts += ps.size();
        }
        std::size_t rects = 0, panels = 0;
        for (auto at = drawn.find("class=\"part\""); at != std::string::npos;
             at = drawn.find("class=\"part\"", at + 1))
            ++rects;
        for (auto at = drawn.find("class=\"inset\""); at != std::string::npos;
             at = drawn.find("class=\"inset\"", at + 1))
            ++panels;
        CHECK(rects == 2 * parts);
        CHECK(panels == p["scratch_buffers"].size());
        CHECK(p["untiled_load_bytes"] == untiled["lower_bound_bytes"]);
        CHECK(p["peak_bytes"] == j["peak_bytes"]);
        CHECK(2 * p["peak_bytes"].get<std::size_t>() <= p["untiled_load_bytes"].get<std::size_t>());
        CHECK(p["mac_overhead"].get<double>() <= 1.3);
        CHECK(!p["stage"]["first"].get<std::string>().empty());
        CHECK(j["inputs"][0]["dtype"] == "int8");
        CHECK(j["inputs"][0]["zero_point"] == 0);
        CHECK(j["inputs"][0]["step"].get<double>() > 0);
        // run --patches auto writes the same bytes as run.
        r = run_cli("run " + q + " --output-dir " + quote((dir / "plain").string()));
        REQUIRE(r.code == 0);
        r = run_cli("run " + q + " --patches auto --output-dir " +
                    quote((dir / "patched").string()));
        INFO(r.out);
        REQUIRE(r.code == 0);
        CHECK(r.out.find("patches:") != std::string::npos);
        auto a = load_npy(dir / "plain" / "output_0.npy"),
             b = load_npy(dir / "patched" / "output_0.npy");
        REQUIRE(a.bytes() == b.bytes());
        CHECK(std::memcmp(a.data(), b.data(), a.bytes()) == 0);
    }
    auto r = run_cli("plan x --patches 4");
    CHECK(r.code == 2);
    CHECK(r.out.find("expected auto or NxM") != std::string::npos);
}

TEST_CASE("codegen writes a firmware network header, or names what it cannot") {
    auto dir = scratch("codegen_squeezenet");
    auto r = run_cli("generate squeezenet1_1 -o " + quote(dir.string()) + " --input-size 32");
    REQUIRE(r.code == 0);
    const auto header = dir / "net.hpp";
    r = run_cli("codegen " + quote(dir.string()) + " -o " + quote(header.string()) +
                " --namespace sq --segments fast:16K,slow:1M");
    INFO(r.out);
    REQUIRE(r.code == 0);
    std::ifstream in(header);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* piece :
         {"namespace sq {", "#include \"litegraph/firmware/network.hpp\"",
          "static_assert(litegraph::planner::network_fits<plan.shortfall>());",
          "layer<litegraph::fusion::fused<litegraph::ops::conv2d, litegraph::fusion::bias, "
          "litegraph::fusion::act<litegraph::ops::act::relu>>>",
          "alignas(64) inline std::byte fast[fast_bytes] SQ_FAST_ATTR;",
          "alignas(64) inline std::byte slow[slow_bytes] SQ_SLOW_ATTR;",
          "SQ_WEIGHTS_ATTR constexpr float w0["}) {
        INFO(piece);
        CHECK(text.find(piece) != std::string::npos);
    }
    CHECK(text.find("paddle") == std::string::npos);
    CHECK(text.find("protobuf") == std::string::npos);

    CHECK(run_cli("codegen " + quote(dir.string())).code == 2);  // no -o
    CHECK(run_cli("codegen " + quote(dir.string()) + " -o x.hpp --namespace 9x").code == 2);
    r = run_cli("codegen " + quote(test::shared_dir().string() + "/models/dqn_atari_conv") +
                " -o " + quote((dir / "dqn.hpp").string()));
    if (fs::exists(test::shared_dir() / "models/dqn_atari_conv")) {
        CHECK(r.code == 1);
        CHECK(r.out.find("op elementwise_div") != std::string::npos);
        CHECK(r.out.find("no compile-time form") != std::string::npos);
    }
}

TEST_CASE("codegen --input writes a .npy as the sample input, of the input's dtype and shape") {
    auto dir = scratch("codegen_input");
    auto r = run_cli("generate squeezenet1_1 -o " + quote(dir.string()) + " --input-size 32");
    REQUIRE(r.code == 0);
    const std::string model = quote(dir.string());
    auto read = [](const fs::path& p) {
        std::ifstream in(p);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    // The deterministic input written as a .npy: the same header, the input
    // marked as given.
    tensor x(dtype::f32, {1, 3, 32, 32});
    for (std::int64_t i = 0; i < x.numel(); ++i)
        x.span<float>()[std::size_t(i)] =
            static_cast<float>(std::sin(0.37 * double(i)) * std::cos(0.011 * double(i)));
    save_npy(dir / "x.npy", x.ref());
    r = run_cli("codegen " + model + " -o " + quote((dir / "det.hpp").string()) +
                " --sample-input");
    REQUIRE(r.code == 0);
    r = run_cli("codegen " + model + " -o " + quote((dir / "given.hpp").string()) +
                " --input image=" + quote((dir / "x.npy").string()));  // implies --sample-input
    INFO(r.out);
    REQUIRE(r.code == 0);
    std::string given = read(dir / "given.hpp");
    const std::string mark = "// image: from codegen --input\n";
    REQUIRE(given.find(mark) != std::string::npos);
    given.erase(given.find(mark), mark.size());
    CHECK(given == read(dir / "det.hpp"));
    // Other values, and the shape from --shape (which the file must have).
    tensor y(dtype::f32, {1, 3, 40, 48});
    for (std::int64_t i = 0; i < y.numel(); ++i) y.span<float>()[std::size_t(i)] = 0.75f;
    save_npy(dir / "y.npy", y.ref());
    r = run_cli("codegen " + model + " -o " + quote((dir / "y.hpp").string()) +
                " --shape image=1,3,40,48 --input image=" + quote((dir / "y.npy").string()));
    REQUIRE(r.code == 0);
    CHECK(read(dir / "y.hpp").find("sample_input_0[5760] = {\n    0x1.8p-1f, 0x1.8p-1f,") !=
          std::string::npos);
    // Without --shape the file's shape is the input's.
    r = run_cli("codegen " + model + " -o " + quote((dir / "y2.hpp").string()) +
                " --input image=" + quote((dir / "y.npy").string()));
    CHECK(r.code == 0);
    CHECK(read(dir / "y2.hpp") == read(dir / "y.hpp"));

    tensor ids(dtype::i64, {1, 3, 32, 32});
    save_npy(dir / "ids.npy", ids.ref());
    for (const auto& c : std::initializer_list<std::pair<std::string, std::string>>{
             {" --shape image=1,3,32,32 --input image=" + quote((dir / "y.npy").string()),
              "--input image: the file is float32 [1,3,40,48], the network's input is float32 "
              "[1,3,32,32]"},
             {" --input image=" + quote((dir / "ids.npy").string()),
              "--input image: the file is int64 [1,3,32,32], the network's input is float32 "
              "[1,3,32,32]"},
             {" --input nope=" + quote((dir / "x.npy").string()), "no input named 'nope'"},
             {" --input image=" + quote((dir / "none.npy").string()), "no file"},
             {" --input image=" + quote((dir / "given.hpp").string()), "--input image: "},
             {" --input image", "expects NAME=FILE.npy"},
             {" --input image=" + quote((dir / "x.npy").string()) +
                  " --input image=" + quote((dir / "x.npy").string()),
              "--input image given twice"}}) {
        const std::string& args = c.first;
        const std::string& says = c.second;
        INFO(args);
        r = run_cli("codegen " + model + " -o " + quote((dir / "bad.hpp").string()) + args);
        CHECK(r.code == 2);
        CHECK(r.out.find(says) != std::string::npos);
    }
    CHECK(run_cli("codegen --help").out.find("--input NAME=FILE.npy") != std::string::npos);
}

TEST_CASE("codegen writes a quantized model's int8 layers and int8 weights") {
    auto dir = scratch("codegen_squeezenet_int8");
    auto r =
        run_cli("generate squeezenet1_1 -o " + quote((dir / "fp32").string()) + " --input-size 32");
    REQUIRE(r.code == 0);
    r = run_cli("quantize " + quote((dir / "fp32").string()) + " -o " +
                quote((dir / "q").string()) + " --calib-random 1");
    INFO(r.out);
    REQUIRE(r.code == 0);
    // stderr is a pipe here: no \r progress lines in it (a terminal gets them).
    CHECK(r.out.find("calibrating") == std::string::npos);
    CHECK(r.out.find('\r') == std::string::npos);
    const auto header = dir / "net.hpp";
    r = run_cli("codegen " + quote((dir / "q").string()) + " -o " + quote(header.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    std::ifstream in(header);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* piece :
         {"layer<litegraph::ops::quantize_int8>{", "layer<litegraph::fusion::fused_int8<",
          "layer<litegraph::ops::pool2d_int8>{", "litegraph::fusion::quantize_store",
          "NET_WEIGHTS_ATTR constexpr std::int8_t w0["}) {
        INFO(piece);
        CHECK(text.find(piece) != std::string::npos);
    }
}

TEST_CASE("codegen --patches writes the patched stage patch by patch, or says why not") {
    auto dir = scratch("codegen_patches");
    auto r =
        run_cli("generate squeezenet1_1 -o " + quote((dir / "fp32").string()) + " --input-size 64");
    REQUIRE(r.code == 0);
    r = run_cli("quantize " + quote((dir / "fp32").string()) + " -o " +
                quote((dir / "q").string()) + " --calib-random 1");
    REQUIRE(r.code == 0);
    const auto q = quote((dir / "q").string());
    auto header_text = [](const fs::path& p) {
        std::ifstream in(p);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    auto count = [](const std::string& text, const std::string& piece) {
        std::size_t n = 0;
        for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1))
            ++n;
        return n;
    };
    const auto untiled = dir / "untiled.hpp", patched = dir / "patched.hpp";
    r = run_cli("codegen " + q + " -o " + quote(untiled.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("patches:") == std::string::npos);
    r = run_cli("codegen " + q + " -o " + quote(patched.string()) +
                " --patches 2x2 --input-dtype int8");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("patches: 2x2 over") != std::string::npos);
    const auto a = header_text(untiled), b = header_text(patched);
    const std::string conv = "layer<litegraph::fusion::fused_int8<";
    CHECK(count(a, "layer<litegraph::firmware::copy_window>{") == 0);
    CHECK(count(b, "layer<litegraph::firmware::copy_window>{") >= 4);  // a patch into T each
    CHECK(count(b, conv) > count(a, conv));  // the stage's convs once per patch
    CHECK(b.find("litegraph::firmware::largest({") != std::string::npos);
    // --input-dtype int8: the input is the int8 tensor, not quantized by a layer.
    CHECK(b.find(", 1},\n};\ninline constexpr io_tensor outputs[]") !=
          std::string::npos);  // element_bytes 1
    CHECK(count(b, "layer<litegraph::ops::quantize_int8>") == 0);

    // Segments the untiled plan does not fit: patched automatically, unless none.
    r = run_cli("codegen " + q + " -o " + quote(patched.string()) + " --segments sram:60K");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("the untiled plan does not fit sram:60K") != std::string::npos);
    CHECK(r.out.find("patches: ") != std::string::npos);
    r = run_cli("codegen " + q + " -o " + quote(patched.string()) +
                " --segments sram:60K --patches none");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("patches:") == std::string::npos);
    CHECK(header_text(patched).find("copy_window") == std::string::npos);
    r = run_cli("codegen " + q + " -o " + quote(patched.string()) + " --patches 4");
    CHECK(r.code == 2);
    CHECK(r.out.find("expected auto or NxM") != std::string::npos);
}

TEST_CASE("quantize --calib DIR shows no progress when stderr is not a terminal") {
    auto dir = scratch("quantize_calib_dir");
    auto r =
        run_cli("generate squeezenet1_1 -o " + quote((dir / "fp32").string()) + " --input-size 32");
    REQUIRE(r.code == 0);
    fs::create_directories(dir / "calib");
    for (int i = 0; i < 3; ++i)
        save_npy(dir / "calib" / ("s" + std::to_string(i) + ".npy"),
                 test::random_tensor({1, 3, 32, 32}, static_cast<std::uint32_t>(i)).ref());
    r = run_cli("quantize " + quote((dir / "fp32").string()) + " -o " +
                quote((dir / "q").string()) + " --calib " + quote((dir / "calib").string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("3 samples") != std::string::npos);
    // stderr is a pipe: neither the sample reading nor the calibration draws a \r line.
    CHECK(r.out.find('\r') == std::string::npos);
    CHECK(r.out.find("reading calibration") == std::string::npos);
    CHECK(r.out.find("calibrating") == std::string::npos);
}

TEST_CASE("dot prints a digraph with boxes and ellipses") {
    auto model = test::shared_model("lenet_mnist");
    if (model.empty()) return;
    auto r = run_cli("dot " + quote(model.string()));
    REQUIRE(r.code == 0);
    CHECK(r.out.rfind("digraph", 0) == 0);
    CHECK(r.out.find("shape=box") != std::string::npos);
    CHECK(r.out.find("shape=ellipse") != std::string::npos);
    CHECK(r.out.find("conv2d") != std::string::npos);
    // Valid DOT: Graphviz itself renders it (CI installs graphviz).
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        auto out = fs::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "lenet.dot";
        fs::create_directories(out.parent_path());
        REQUIRE(run_cli("dot " + quote(model.string()) + " --after all -o " + quote(out.string()))
                    .code == 0);
        CHECK(std::system(("dot -Tsvg " + quote(out.string()) + " -o /dev/null").c_str()) == 0);
    } else {
        MESSAGE("skipped the Graphviz check: no dot command");
    }
}
