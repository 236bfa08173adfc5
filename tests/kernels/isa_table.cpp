// The instruction-set table (kernels/isa_table.hpp) is the one list of slots:
// the dispatch code's slots and names are its rows, in its order; the file
// reads, line by line, as CMake and meson read it (the same rows, and CMake's
// litegraph_isa_rows gives them); every row
// has its unit src/simd/<slot>.cpp defining litegraph_simd_<slot>, and every
// unit is a row; the units this build compiled (cmake/litegraphSimd.cmake)
// are the slots whose table the program has; LITEGRAPH_SIMD's message names
// the rows.  tests/isa_slot builds the table with one row more.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "litegraph/kernels/isa_table.hpp"
#include "litegraph/kernels/simd.hpp"

using namespace litegraph;
namespace simd = kernels::simd;
namespace fs = std::filesystem;

namespace {

// The rows as the C++ sees them (the X-macro).
#define ISA_TEST_NAME(slot, family, flags, macros, cpu) #slot,
const std::vector<std::string> cxx_rows = {LITEGRAPH_ISA_TABLE(ISA_TEST_NAME)};
#undef ISA_TEST_NAME

std::string read(const fs::path& p) {
    std::ifstream in(p);
    REQUIRE_MESSAGE(in.good(), "cannot read " << p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const fs::path source_dir = LITEGRAPH_SOURCE_DIR;

// The rows as cmake/litegraphSimd.cmake reads them: every line starting
// with X(, of the form X(slot, family, "flags", "macros", cpu).
std::vector<std::string> file_rows() {
    std::istringstream in(read(source_dir / "include/litegraph/kernels/isa_table.hpp"));
    const std::regex row(R"re(^ *X\(([a-z0-9_]+), ([a-z0-9_]+), "([^"]*)", "([^"]*)", )re");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        if (line.find_first_not_of(' ') == std::string::npos) continue;
        if (line.compare(line.find_first_not_of(' '), 2, "X(") != 0) continue;
        std::smatch m;
        REQUIRE_MESSAGE(std::regex_search(line, m, row), "a row CMake cannot read: " << line);
        out.push_back(m[1]);
    }
    return out;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace

TEST_CASE("the dispatch's slots are the table's rows, in order") {
    REQUIRE(!cxx_rows.empty());
    CHECK(simd::isa_count == static_cast<int>(cxx_rows.size()) + 1);
    for (std::size_t r = 0; r < cxx_rows.size(); ++r) {
        const auto slot = static_cast<simd::isa>(r + 1);
        CHECK(simd::isa_name(slot) == simd::slot_name(cxx_rows[r].c_str()));
    }
    // The names differ from each other and from the baseline's.
    for (std::size_t r = 0; r < cxx_rows.size(); ++r) {
        CHECK(cxx_rows[r] != simd::sse_baseline_name);
        for (std::size_t q = r + 1; q < cxx_rows.size(); ++q) CHECK(cxx_rows[r] != cxx_rows[q]);
    }
}

TEST_CASE("CMake and meson read the same rows from the table file") {
    // The file's row lines (meson.build splits each at ", ").
    CHECK(file_rows() == cxx_rows);
    // cmake/litegraphSimd.cmake's litegraph_isa_rows (tests/CMakeLists.txt).
    CHECK(split(LITEGRAPH_TEST_CMAKE_SLOTS) == cxx_rows);
}

TEST_CASE("every row has its unit, and every unit is a row") {
    for (const auto& slot : cxx_rows) {
        INFO("slot " << slot);
        const fs::path unit = source_dir / "src/simd" / (slot + ".cpp");
        REQUIRE(fs::exists(unit));
        const std::string text = read(unit);
        CHECK(text.find("litegraph_simd_" + slot + " =") != std::string::npos);
        CHECK(text.find("litegraph/simd/arch_unit.hpp") != std::string::npos);
    }
    for (const auto& e : fs::directory_iterator(source_dir / "src/simd")) {
        INFO("unit " << e.path());
        CHECK(std::find(cxx_rows.begin(), cxx_rows.end(), e.path().stem().string()) !=
              cxx_rows.end());
    }
}

TEST_CASE("the units this build compiled are the slots the program has") {
    const auto built = split(LITEGRAPH_TEST_BUILT_SLOTS);
    MESSAGE("units built: " << LITEGRAPH_TEST_BUILT_SLOTS);
    for (std::size_t r = 0; r < cxx_rows.size(); ++r) {
        const auto slot = static_cast<simd::isa>(r + 1);
        const bool compiled = std::find(built.begin(), built.end(), cxx_rows[r]) != built.end();
        INFO("slot " << cxx_rows[r]);
        CHECK((simd::table_of(slot) != nullptr) == compiled);
        if (!compiled) CHECK(!simd::usable(slot));
    }
}

TEST_CASE("LITEGRAPH_SIMD's unknown-name message lists the baseline and this family's rows") {
    // The rows of this CPU family (kernels/isa_table.hpp's family column),
    // as LITEGRAPH_SIMD spells them.
    std::vector<std::string> names{simd::family_baseline_name()};
    for (std::size_t r = 0; r < cxx_rows.size(); ++r)
        if (simd::in_family(static_cast<simd::isa>(r + 1)))
            names.push_back(simd::slot_name(cxx_rows[r].c_str()));
#if defined(__x86_64__)
    CHECK(names.front() == "sse2");
    CHECK(std::find(names.begin(), names.end(), "avx2") != names.end());
    CHECK(std::find(names.begin(), names.end(), "neon-dotprod") == names.end());
#elif defined(__aarch64__)
    CHECK(names == std::vector<std::string>{"neon", "neon-dotprod"});
#endif
    std::string want = names[0];
    for (std::size_t r = 1; r < names.size(); ++r)
        want += (r + 1 == names.size() ? " or " : ", ") + names[r];
    CHECK(simd::known_names() == want);
}

TEST_CASE("a slot's name takes - for _, and LITEGRAPH_SIMD takes either") {
    CHECK(simd::slot_name("neon_dotprod") == "neon-dotprod");
    CHECK(simd::slot_name("avx512vnni") == "avx512vnni");
    // Another family's rows are never usable here.
    for (std::size_t r = 0; r < cxx_rows.size(); ++r)
        if (!simd::in_family(static_cast<simd::isa>(r + 1)))
            CHECK_FALSE(simd::usable(static_cast<simd::isa>(r + 1)));
}
