// A corpus of broken models, made at test time from real and generated ones:
// each gives a named, typed error (and a non-zero CLI exit), never a crash.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "litegraph/paddle.hpp"
#include "litegraph/runtime/program.hpp"
#include "scratch.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace litegraph;

namespace models_broken_test {
using test::run_cli;

namespace {

fs::path scratch(const std::string& name) {
    return test::scratch(fs::path("broken") / name);
}

fs::path copy_model(const fs::path& from, const std::string& name) {
    auto to = scratch(name);
    for (auto& e : fs::directory_iterator(from))
        if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename());
    for (auto& e : fs::directory_iterator(to))
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    return to;
}

std::vector<char> read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}
void write_all(const fs::path& p, const std::vector<char>& d) {
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(d.data(), static_cast<std::streamsize>(d.size()));
}

/// Loads and runs `dir` through the API; returns the error message (or "" when it ran).
template <class Error>
std::string api_error(const fs::path& dir) {
    try {
        runtime::program p(paddle::load(dir).graph);
        for (std::size_t i = 0; i < p.input_count(); ++i) {
            auto shape = p.input_var(i).shape;
            for (auto& d : shape)
                if (d < 0) d = 1;
            p.set_input(i, tensor(p.input_var(i).type, shape));
        }
        p.run();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// The CLI's `run` fails with exit 1 and a message containing `needle`.
void check_cli_fails(const fs::path& dir, const std::string& needle) {
    if (!fs::exists(test::cli_path())) {
        MESSAGE("skipped the CLI check: build/bin/litegraph is not built");
        return;
    }
    auto r = run_cli("run '" + dir.string() + "'");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find(needle) != std::string::npos);
}

/// A tiny valid model: x -> scale -> y, with one parameter used by elementwise_add.
graph::graph tiny(const std::string& op_type = "scale", bool cycle = false, bool bad_dims = false) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4});
    b.declare("a", {-1, 4});
    b.declare("y", {-1, 4});
    graph::var_node w;
    w.name = "w";
    w.persistable = true;
    w.shape = bad_dims ? shape_t{5} : shape_t{4};
    w.value = tensor(dtype::f32, {4});
    b.declare(std::move(w));
    b.feed("x", 0);
    b.add_op(op_type, {{"X", {cycle ? "y" : "x"}}}, {{"Out", {"a"}}}, {});
    b.add_op("elementwise_add", {{"X", {"a"}}, {"Y", {"w"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("the tiny model itself is valid") {
    auto dir = scratch("valid");
    paddle::save(tiny(), dir, "model");
    CHECK(api_error<error>(dir).empty());
    if (fs::exists(test::cli_path())) CHECK(run_cli("run '" + dir.string() + "'").code == 0);
}

TEST_CASE("truncated params: a format error naming the file and offset") {
    auto src = test::shared_model("lenet_mnist");
    if (src.empty()) return;
    auto dir = copy_model(src, "truncated");
    auto data = read_all(dir / "mnist.pdiparams");
    data.resize(data.size() - 100);
    write_all(dir / "mnist.pdiparams", data);
    auto msg = api_error<format_error>(dir);
    CHECK(msg.find("mnist.pdiparams") != std::string::npos);
    CHECK(msg.find("byte") != std::string::npos);
    check_cli_fails(dir, "mnist.pdiparams");
}

TEST_CASE("a flipped byte in the topology: a format error, never a crash") {
    auto src = test::shared_model("lenet_mnist");
    if (src.empty()) return;
    auto dir = copy_model(src, "flipped");
    const auto original = read_all(dir / "mnist.pdmodel");
    auto data = original;
    data[0] = static_cast<char>(data[0] ^ 0xff);  // the first tag: an invalid wire type
    write_all(dir / "mnist.pdmodel", data);
    auto msg = api_error<format_error>(dir);
    CHECK(msg.find("mnist.pdmodel") != std::string::npos);
    check_cli_fails(dir, "mnist.pdmodel");
    // Any single flipped byte: loads and runs, or a litegraph error; nothing else.
    for (std::size_t at = 1; at < original.size(); at += original.size() / 97 + 1) {
        data = original;
        data[at] = static_cast<char>(data[at] ^ 0x5a);
        write_all(dir / "mnist.pdmodel", data);
        INFO("flipped byte " << at);
        CHECK_NOTHROW(api_error<error>(dir));
    }
}

TEST_CASE("param dims that disagree with the topology: a named format error") {
    auto dir = scratch("bad_dims");
    paddle::save(tiny("scale", false, true), dir, "model");
    auto msg = api_error<format_error>(dir);
    CHECK(msg.find("'w'") != std::string::npos);
    check_cli_fails(dir, "w");
}

TEST_CASE("a missing separate param file: an io error naming it") {
    auto src = test::shared_model("serving_uci_housing_fit_a_line");
    if (src.empty()) return;
    auto dir = copy_model(src, "missing_param");
    fs::remove(dir / "fc_0.b_0");
    auto msg = api_error<io_error>(dir);
    CHECK(msg.find("fc_0.b_0") != std::string::npos);
    check_cli_fails(dir, "fc_0.b_0");
}

TEST_CASE("an unknown op: an unsupported error naming it") {
    auto dir = scratch("unknown_op");
    paddle::save(tiny("frobnicate"), dir, "model");
    auto msg = api_error<unsupported_error>(dir);
    CHECK(msg.find("frobnicate") != std::string::npos);
    check_cli_fails(dir, "unsupported op");
}

TEST_CASE("a cycle: a graph error naming its ops") {
    auto dir = scratch("cycle");
    paddle::save(tiny("scale", true), dir, "model");
    auto msg = api_error<graph_error>(dir);
    CHECK(msg.find("cycle") != std::string::npos);
    check_cli_fails(dir, "cycle");
}

}  // namespace models_broken_test
