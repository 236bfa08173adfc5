// `litegraph codegen` on a small model with an rnn (LSTM, bidirectional)
// between transposes: the layer's PreState and WeightList become list operands
// (constexpr firmware::operand arrays in the header's namespace `lists`) and
// its unread State outputs need no memory; a model that fetches State (or
// reads it) is refused, naming the op and the output.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "litegraph/paddle.hpp"
#include "scratch.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace litegraph;

namespace tools_codegen_rnn_test {
using test::run_cli;

namespace {

fs::path scratch(const std::string& name) {
    return test::scratch(fs::path("codegen_rnn") / name);
}

void param(graph::builder& b, const std::string& name, const shape_t& shape, std::uint32_t seed) {
    b.declare(test::param_var(name, shape, seed));
}

/// x [1, I, T] -> transpose2 [T, 1, I] -> rnn (LSTM, 1 layer, bidirectional,
/// hidden H; h0, c0 from fill_constant_batch_size_like) -> y [T, 1, 2H];
/// State fetched too when `fetch_state`.
graph::graph lstm_model(bool fetch_state) {
    constexpr std::int64_t in = 3, steps = 6, h = 4;
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, in, steps});
    b.declare("xt", {steps, 1, in});
    b.declare("xs", {0});
    b.declare("h0", {2, 1, h});
    b.declare("c0", {2, 1, h});
    b.declare("y", {steps, 1, 2 * h});
    b.declare("hn", {2, 1, h});
    b.declare("cn", {2, 1, h});
    b.declare("reserve", {0});
    b.declare("dropout_state", {0});
    std::vector<std::string> weights;
    std::uint32_t seed = 40;
    for (int d = 0; d < 2; ++d) {
        const auto s = std::to_string(d);
        param(b, "wih" + s, {4 * h, in}, seed++);
        param(b, "whh" + s, {4 * h, h}, seed++);
        weights.insert(weights.end(), {"wih" + s, "whh" + s});
    }
    for (int d = 0; d < 2; ++d) {
        const auto s = std::to_string(d);
        param(b, "bih" + s, {4 * h}, seed++);
        param(b, "bhh" + s, {4 * h}, seed++);
        weights.insert(weights.end(), {"bih" + s, "bhh" + s});
    }
    b.feed("x", 0);
    attr_map t;
    t.set("axis", std::vector<std::int32_t>{2, 0, 1});
    b.add_op("transpose2", {{"X", {"x"}}}, {{"Out", {"xt"}}, {"XShape", {"xs"}}}, t);
    for (const char* name : {"h0", "c0"}) {
        attr_map f;
        f.set("shape", std::vector<std::int32_t>{2, -1, static_cast<std::int32_t>(h)});
        f.set("value", 0.f);
        f.set("dtype", 5);
        f.set("input_dim_idx", 1);
        f.set("output_dim_idx", 1);
        b.add_op("fill_constant_batch_size_like", {{"Input", {"xt"}}}, {{"Out", {name}}}, f);
    }
    attr_map r;
    r.set("mode", std::string("LSTM"));
    r.set("num_layers", std::int32_t{1});
    r.set("is_bidirec", true);
    r.set("hidden_size", static_cast<std::int32_t>(h));
    r.set("input_size", static_cast<std::int32_t>(in));
    r.set("is_test", true);
    b.add_op("rnn", {{"Input", {"xt"}}, {"PreState", {"h0", "c0"}}, {"WeightList", weights}},
             {{"Out", {"y"}},
              {"State", {"hn", "cn"}},
              {"Reserve", {"reserve"}},
              {"DropoutState", {"dropout_state"}}},
             r);
    b.fetch("y", 0);
    if (fetch_state) b.fetch("hn", 1);
    b.finish();
    return g;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("codegen writes an rnn's list inputs as operand arrays; State must be unread") {
    if (!fs::exists(test::cli_path())) {
        MESSAGE("skipped: build/bin/litegraph is not built");
        return;
    }
    auto dir = scratch("lstm");
    paddle::save(lstm_model(false), dir, "model");
    const auto header = dir / "net.hpp";
    auto r = run_cli("codegen '" + dir.string() + "' -o '" + header.string() + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const auto text = read_text(header);
    for (const char* piece :
         {"namespace lists {", "inline constexpr litegraph::firmware::operand l0[] = {",
          "inline constexpr litegraph::firmware::operand l1[] = {",
          "layer<litegraph::ops::transpose2>",
          "layer<litegraph::ops::fill_constant_batch_size_like>", "layer<litegraph::ops::rnn>",
          "{{}, nullptr, lists::l0, 2}", "{{}, nullptr, lists::l1, 8}"}) {
        INFO(piece);
        CHECK(text.find(piece) != std::string::npos);
    }

    auto dir2 = scratch("lstm_state");
    paddle::save(lstm_model(true), dir2, "model");
    r = run_cli("codegen '" + dir2.string() + "' -o '" + (dir2 / "net.hpp").string() + "'");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("op rnn") != std::string::npos);
    CHECK(r.out.find("its output State ('hn') is fetched") != std::string::npos);
    CHECK(r.out.find("computes only Out") != std::string::npos);
}

}  // namespace tools_codegen_rnn_test
