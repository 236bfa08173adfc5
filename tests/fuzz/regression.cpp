// Every input in tests/broken/ (crashes, hangs and sanitizer reports the fuzz
// targets found, minimized) runs through the same harness as the fuzzers and
// must give the typed error its name states:
//   tests/broken/<target>-<expected>-<what>.bin
// <target>: topology, params, model, pir, plan or fusion (tests/fuzz/harness.hpp);
// <expected>: format_error, shape_error, graph_error, unsupported_error,
// io_error, usage_error, or ok (accepted without error).
// Built with clang's -fsanitize=address (the CI's sanitizer run), each input is
// also held to the allocation bound of docs/hardening.md, as the fuzzers hold
// theirs (tests/fuzz/alloc_bound.hpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "fuzz/alloc_bound.hpp"
#include "fuzz/harness.hpp"

namespace fs = std::filesystem;
using namespace litegraph;

namespace {

// From the build's definition, not __FILE__: a compiler cache may make
// __FILE__ relative to the build folder.
fs::path broken_dir() {
    return fs::path(LITEGRAPH_TESTS_DIR) / "broken";
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// The name of the litegraph error `run` throws on `bytes`, or "ok".
std::string outcome(fuzz::target t, const std::string& bytes, std::string& message) {
    try {
        fuzz::run(t, bytes);
        return "ok";
    } catch (const format_error& e) {
        message = e.what();
        return "format_error";
    } catch (const shape_error& e) {
        message = e.what();
        return "shape_error";
    } catch (const graph_error& e) {
        message = e.what();
        return "graph_error";
    } catch (const unsupported_error& e) {
        message = e.what();
        return "unsupported_error";
    } catch (const io_error& e) {
        message = e.what();
        return "io_error";
    } catch (const usage_error& e) {
        message = e.what();
        return "usage_error";
    } catch (const error& e) {
        message = e.what();
        return "error";
    }
}

}  // namespace

TEST_CASE("every input in tests/broken gives the typed error its name states") {
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(broken_dir()))
        if (e.path().extension() == ".bin") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(!files.empty());
    static const bool hooked = (fuzz::alloc_bound::install(), true);
    (void)hooked;
    for (auto& f : files) {
        const auto stem = f.stem().string();
        const auto dash1 = stem.find('-');
        const auto dash2 = stem.find('-', dash1 + 1);
        REQUIRE_MESSAGE(dash2 != std::string::npos, "bad name: " << f.filename().string());
        const auto target = stem.substr(0, dash1);
        const auto expected = stem.substr(dash1 + 1, dash2 - dash1 - 1);
        fuzz::target t = target == "topology" ? fuzz::target::topology
                         : target == "params" ? fuzz::target::params
                         : target == "pir"    ? fuzz::target::pir
                         : target == "plan"   ? fuzz::target::plan
                         : target == "fusion" ? fuzz::target::fusion
                                              : fuzz::target::model;
        REQUIRE_MESSAGE((target == "topology" || target == "params" || target == "model" ||
                         target == "pir" || target == "plan" || target == "fusion"),
                        "bad target in " << f.filename().string());
        std::string message;
        const auto bytes = slurp(f);
        const auto got = outcome(t, bytes, message);
        const auto over =
            fuzz::alloc_bound::over(t == fuzz::target::model || t == fuzz::target::pir);
        INFO(f.filename().string() << ": " << message);
        CHECK(got == expected);
        CHECK_MESSAGE(over.empty(), over);
    }
}

TEST_CASE("the params target's seeds load (the fixed topology reads valid records)") {
    std::string combined(1, '\0');
    std::map<std::string, tensor> values;
    values.emplace("bias", tensor(dtype::f32, {3}));
    values.emplace("emb", tensor(dtype::i64, {5, 2}));
    values.emplace("half", tensor(dtype::f16, {2}));
    values.emplace("q", tensor(dtype::i8, {2, 2, 2}));
    values.emplace("w", tensor(dtype::f32, {4, 3}));
    for (auto& name : fuzz::params_names()) paddle::append_record(combined, values.at(name));
    CHECK_NOTHROW(fuzz::run(fuzz::target::params, combined));
    // One byte short: a format_error naming the memory buffer and an offset.
    combined.pop_back();
    CHECK_THROWS_AS(fuzz::run(fuzz::target::params, combined), format_error);
}

TEST_CASE("the differential targets hold on random inputs (fuzz_plan, fuzz_fusion)") {
    // What the fuzzers check, on 120 + 24 deterministic random inputs (about a
    // second in a Release build, ~10x that under the sanitizers): a
    // finding throws fuzz::plan_finding / fusion_finding (not a
    // litegraph::error), which fails this test with the problem printed.
    std::mt19937 rng(22);
    for (int i = 0; i < 120; ++i) {
        std::string bytes(std::size_t(rng() % 256), '\0');
        for (auto& c : bytes) c = static_cast<char>(rng());
        INFO("plan input " << i);
        CHECK_NOTHROW(fuzz::run(fuzz::target::plan, bytes));
    }
    for (int i = 0; i < 24; ++i) {
        std::string bytes(std::size_t(rng() % 128), '\0');
        for (auto& c : bytes) c = static_cast<char>(rng());
        INFO("fusion input " << i);
        CHECK_NOTHROW(fuzz::run(fuzz::target::fusion, bytes));
    }
}
