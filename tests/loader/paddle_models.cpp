// Every shared Paddle model loads: op counts as its MODEL_INFO.txt lists them,
// parameters attached to every persistable variable, feeds and fetches as declared.
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include "loader/paddle_support.hpp"

using namespace litegraph;

namespace loader_paddle_models_test {
namespace fs = std::filesystem;

namespace {

/// The value of "key: ..." in a MODEL_INFO.txt, or empty.
std::string info_line(const fs::path& dir, const std::string& key) {
    std::ifstream f(dir / "MODEL_INFO.txt");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(key + ": ", 0) == 0) return line.substr(key.size() + 2);
    return {};
}

std::map<std::string, int> info_ops(const fs::path& dir) {
    std::map<std::string, int> ops;
    std::string line = info_line(dir, "ops");
    if (line.empty()) {  // "ops (N): {...}", the layout that counts them first
        std::ifstream f(dir / "MODEL_INFO.txt");
        for (std::string l; std::getline(f, l);)
            if (l.rfind("ops (", 0) == 0 && l.find("): ") != std::string::npos) {
                line = l.substr(l.find("): ") + 3);
                break;
            }
    }
    std::regex entry("'([^']+)': ([0-9]+)");
    for (std::sregex_iterator it(line.begin(), line.end(), entry), end; it != end; ++it)
        ops[(*it)[1].str()] = std::stoi((*it)[2].str());
    return ops;
}

/// The other MODEL_INFO.txt layout (a decoder's report): "op types (N
/// distinct, M ops):" followed by "  name  count" lines.
std::map<std::string, int> info_op_table(const fs::path& dir) {
    std::map<std::string, int> ops;
    std::ifstream f(dir / "MODEL_INFO.txt");
    std::string line;
    bool in_table = false;
    std::regex row("^  ([a-z0-9_]+) +([0-9]+)$");
    while (std::getline(f, line)) {
        std::smatch m;
        if (line.rfind("op types (", 0) == 0)
            in_table = true;
        else if (in_table && std::regex_match(line, m, row))
            ops[m[1].str()] = std::stoi(m[2].str());
        else if (in_table)
            break;
    }
    return ops;
}

std::vector<fs::path> model_dirs(const std::string& sub) {
    std::vector<fs::path> dirs;
    auto root = test::shared_dir() / sub;
    if (!fs::exists(root)) {
        MESSAGE("skipped: shared folder " << root.string() << " is absent");
        return dirs;
    }
    for (auto& e : fs::directory_iterator(root))
        if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

const graph::op_node* find_op(const graph::graph& g, const std::string& type) {
    for (auto& op : g.ops)
        if (op.type == type) return &op;
    return nullptr;
}

}  // namespace

TEST_CASE("every shared model loads as its MODEL_INFO describes") {
    for (std::string sub : {"models", "models_topology_only"}) {
        const bool topology_only = sub == "models_topology_only";
        for (auto& dir : model_dirs(sub)) {
            CAPTURE(dir.string());
            // PIR programs (inference.json) have no MODEL_INFO.txt: paddle_pir.cpp.
            if (paddle::detail::is_pir_file(paddle::locate(dir).topology)) continue;
            auto m = paddle::load(dir, {.require_params = !topology_only});
            if (!fs::exists(dir / "MODEL_INFO.txt")) {  // nothing to compare with: it loads
                MESSAGE("no MODEL_INFO.txt in " << dir.string() << ": loaded, not compared");
                CHECK(!m.graph.ops.empty());
                continue;
            }
            auto ops = info_ops(dir);
            if (!ops.empty() && info_line(dir, "ops").empty()) {
                // The "ops (N): {...}" layout lists op counts without the
                // other keys: check those.
                CHECK(m.info.op_counts == ops);
                continue;
            }
            if (ops.empty()) {
                // The decoder-report layout lists op counts only: check those.
                ops = info_op_table(dir);
                REQUIRE(!ops.empty());
                CHECK(m.info.op_counts == ops);
                continue;
            }
            CHECK(m.info.op_counts == ops);
            int kernels = 0;
            for (auto& [t, n] : ops)
                if (t != "feed" && t != "fetch") kernels += n;
            CHECK(static_cast<int>(m.graph.ops.size()) == kernels);
            CHECK(static_cast<int>(m.graph.feeds.size()) == ops["feed"]);
            CHECK(static_cast<int>(m.graph.fetches.size()) == ops["fetch"]);
            CHECK(m.info.feeds.size() == m.graph.feeds.size());

            auto version = info_line(dir, "version");
            CHECK(m.info.program_version == (version == "None" ? 0 : std::stoll(version)));

            std::size_t persistable = 0;
            std::int64_t elements = 0;
            for (auto& v : m.graph.vars) {
                if (!v.persistable) continue;
                CAPTURE(v.name);
                ++persistable;
                if (topology_only) {
                    CHECK(!v.value.has_value());
                } else {
                    REQUIRE(v.value.has_value());
                    CHECK(v.value->type() == v.type);
                    CHECK(v.value->shape() == v.shape);
                    elements += v.value->numel();
                }
            }
            CHECK(persistable == std::stoul(info_line(dir, "num_persistable")));
            if (topology_only) {
                CHECK(m.info.format == "topology-only");
                CHECK(m.info.num_params == 0);
            } else {
                auto params = info_line(dir, "params");
                CHECK(m.info.format ==
                      (params.rfind("combined", 0) == 0 ? "combined" : "separate"));
                CHECK(m.info.num_params == persistable);
                CHECK(m.info.param_elements == elements);
            }
        }
    }
}

TEST_CASE("the PP-OCR classifier: feeds, fetches and parameter totals") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    auto m = paddle::load(dir);
    REQUIRE(m.info.feeds.size() == 1);
    CHECK(m.info.feeds[0].name == "x");
    CHECK(m.info.feeds[0].type == dtype::f32);
    CHECK(m.info.feeds[0].dims == shape_t{-1, 3, 32, 100});
    CHECK(m.info.feeds[0].col == 0);
    REQUIRE(m.info.fetches.size() == 1);
    CHECK(m.info.fetches[0].name == "save_infer_model/scale_0.tmp_1");
    CHECK(m.info.fetches[0].dims == shape_t{-1, 2});
    CHECK(m.graph.vars[m.graph.feeds[0].var].name == "x");
    CHECK(m.info.format == "combined");
    CHECK(m.info.topology_file == dir / "inference.pdmodel");
    CHECK(m.info.params_file == dir / "inference.pdiparams");
    CHECK(m.info.num_params == 213);
    CHECK(m.info.param_bytes == static_cast<std::uint64_t>(m.info.param_elements) * 4);
    // Each record has a 20-byte header plus its TensorDesc; the data is the rest.
    CHECK(m.info.param_bytes < fs::file_size(dir / "inference.pdiparams"));
    CHECK(m.info.param_bytes + 213 * 20 + 213 * 4 < fs::file_size(dir / "inference.pdiparams"));

    // The same model through an explicit topology file, and topology + params.
    auto by_file = paddle::load(dir / "inference.pdmodel");
    auto explicit_pair = paddle::load(dir / "inference.pdmodel", dir / "inference.pdiparams");
    for (auto* other : {&by_file, &explicit_pair}) {
        CHECK(other->graph.ops.size() == m.graph.ops.size());
        CHECK(other->info.param_elements == m.info.param_elements);
    }
}

TEST_CASE("parameter values and attribute types are read as stored") {
    auto dir = test::shared_model("paddlelite_ut_fill_constant");
    if (dir.empty()) return;
    auto m = paddle::load(dir);
    CHECK(m.info.format == "combined");
    CHECK(m.info.params_file == dir / "params");
    int w = m.graph.find_var("place_holder_weight");
    REQUIRE(w >= 0);
    REQUIRE(m.graph.vars[w].value.has_value());
    CHECK(m.graph.vars[w].value->shape() == shape_t{1});
    CHECK(m.graph.vars[w].value->span<float>()[0] == 1.0f);  // bytes 00 00 80 3f
    CHECK(m.info.feeds[0].type == dtype::i32);
    CHECK(m.info.fetches[0].type == dtype::i64);
    CHECK(m.info.fetches[0].dims == shape_t{10, 3});

    auto lenet = test::shared_model("lenet_mnist");
    if (lenet.empty()) return;
    auto l = paddle::load(lenet);
    auto* conv = find_op(l.graph, "conv2d");
    REQUIRE(conv);
    const auto& attrs = conv->attrs.all();
    CHECK(std::holds_alternative<std::vector<std::int32_t>>(attrs.at("strides")));
    CHECK(std::holds_alternative<std::string>(attrs.at("data_format")));
    CHECK(std::holds_alternative<bool>(attrs.at("use_cudnn")));
    CHECK(std::holds_alternative<std::int32_t>(attrs.at("groups")));
    auto* fill = find_op(l.graph, "fill_constant");
    REQUIRE(fill);
    CHECK(std::holds_alternative<float>(fill->attrs.all().at("value")));
    CHECK(std::holds_alternative<std::vector<std::int64_t>>(fill->attrs.all().at("shape")));
    REQUIRE(conv->input("Filter"));
    const auto& filter = l.graph.vars[conv->input("Filter")->vars.at(0)];
    CHECK(filter.persistable);
    CHECK(filter.value.has_value());

    auto w2v = test::shared_model("word2vec_ngram");
    if (w2v.empty()) return;
    auto wm = paddle::load(w2v);
    auto* lookup = find_op(wm.graph, "lookup_table_v2");
    REQUIRE(lookup);
    CHECK(std::holds_alternative<std::int64_t>(lookup->attrs.all().at("padding_idx")));
    CHECK(wm.info.format == "separate");
    CHECK(wm.info.params_dir == w2v);
    CHECK(wm.info.feeds.size() == 4);
    CHECK(wm.info.feeds[3].name == "fourthw");
    CHECK(wm.info.feeds[3].type == dtype::i64);
}

TEST_CASE("a topology-only model requires its parameters unless told otherwise") {
    auto dir = test::shared_model("mobilenet_v1_fp32_224", "models_topology_only");
    if (dir.empty()) return;
    auto e = test::expect_error<io_error>([&] { paddle::load(dir); });
    CHECK(std::string(e.what()).find("missing parameter file") != std::string::npos);
    CHECK(std::string(e.what()).find(dir.string()) != std::string::npos);
    auto m = paddle::load(dir, {.require_params = false});
    CHECK(m.info.format == "topology-only");
    int n = 0;
    for (auto& v : m.graph.vars)
        if (v.persistable && !v.value) {
            CHECK(is_known(v.shape));  // declared shapes stay for planning
            ++n;
        }
    CHECK(n == 137);
}

TEST_CASE("dtype mapping") {
    CHECK(paddle::to_dtype(5) == dtype::f32);
    CHECK(paddle::to_dtype(3) == dtype::i64);
    CHECK(paddle::to_dtype(21) == dtype::i8);
    CHECK(paddle::to_dtype(20) == dtype::u8);
    CHECK(paddle::to_dtype(0) == dtype::boolean);
    CHECK_THROWS_WITH_AS(paddle::to_dtype(22), doctest::Contains("BF16"), unsupported_error);
    for (auto t : {dtype::f32, dtype::f64, dtype::f16, dtype::i8, dtype::u8, dtype::i16, dtype::i32,
                   dtype::i64, dtype::boolean})
        CHECK(paddle::to_dtype(paddle::to_paddle_type(t)) == t);
}

}  // namespace loader_paddle_models_test
