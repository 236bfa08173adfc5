// Chip memory maps (planner/targets.hpp): the segments `--segments stm32h730`
// plans over, and the linker script of the same chip agreeing with them region
// by region (examples/firmware/stm32h730.ld is written by hand; this is what
// keeps the two one fact).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "litegraph/planner/planner.hpp"
#include "litegraph/planner/targets.hpp"

using namespace litegraph::planner;

namespace {

struct ld_region {
    std::uint64_t origin = 0, length = 0;
};

/// "K" / "M" suffixed sizes and "a - b" as GNU ld writes them in MEMORY.
std::uint64_t ld_size(std::string s) {
    std::uint64_t total = 0;
    int sign = 1;
    std::istringstream in(s);
    std::string tok;
    while (in >> tok) {
        if (tok == "-" || tok == "+") {
            sign = tok == "-" ? -1 : 1;
            continue;
        }
        std::uint64_t mult = 1;
        if (tok.back() == 'K') mult = 1024, tok.pop_back();
        if (tok.back() == 'M') mult = 1024 * 1024, tok.pop_back();
        const auto v = std::stoull(tok, nullptr, 0) * mult;
        total = sign > 0 ? total + v : total - v;
    }
    return total;
}

std::map<std::string, ld_region> read_memory(const std::filesystem::path& p) {
    std::ifstream f(p);
    REQUIRE_MESSAGE(f.good(), "cannot read " << p);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    const std::regex line(
        R"((\w+)\s*\([a-z]+\)\s*:\s*ORIGIN\s*=\s*(0x[0-9A-Fa-f]+)\s*,\s*LENGTH\s*=\s*([^\n]+))");
    std::map<std::string, ld_region> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), line);
         it != std::sregex_iterator(); ++it)
        out[(*it)[1]] = {std::stoull((*it)[2], nullptr, 16), ld_size((*it)[3])};
    return out;
}

std::string upper(std::string_view s) {
    std::string u(s);
    for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
}

}  // namespace

TEST_CASE("the stm32h730 map: six activation segments, fastest first, 436 KB beside the DTCM") {
    const auto* m = find_memory_map("stm32h730");
    REQUIRE(m != nullptr);
    CHECK(find_memory_map("stm32h7") == nullptr);
    const auto segs = activation_segments(*m);
    REQUIRE(segs.size() == 6);
    const char* order[] = {"dtcm", "itcm", "axi", "sram1", "sram2", "sram4"};
    for (std::size_t i = 0; i < segs.size(); ++i) CHECK(segs[i].name == order[i]);
    CHECK(segs[0].capacity == 128 * 1024);
    CHECK(segs[2].capacity == 320 * 1024);
    // The patent's budget: 128 KB + 436 KB, the chip's whole RAM; the backup SRAM
    // (data, stack) is in the 436, the ITCM's first 64 bytes (address 0) are not.
    std::uint64_t rest = 0, data = 0;
    for (const auto& r : m->regions) {
        if (r.role == region_role::activations && r.name != "dtcm") rest += r.length;
        if (r.role == region_role::data) data += r.length;
    }
    CHECK(rest + data + 64 == 436 * 1024);
    // No two regions overlap.
    for (std::size_t i = 0; i < m->regions.size(); ++i)
        for (std::size_t j = i + 1; j < m->regions.size(); ++j) {
            const auto &a = m->regions[i], &b = m->regions[j];
            CHECK_MESSAGE((a.origin + a.length <= b.origin || b.origin + b.length <= a.origin),
                          a.name << " overlaps " << b.name);
        }
}

TEST_CASE("a tensor larger than every stm32h730 region does not fit, one that fits AXI SRAM does") {
    const auto segs = activation_segments(*find_memory_map("stm32h730"));
    // SqueezeNet 1.0's int8 conv1 map at 128x128 (96 x 61 x 61 bytes) is larger
    // than the largest region, the 320 KB AXI SRAM: no plan can place it whole.
    std::vector<buffer> big{{96 * 61 * 61, 0, 1}};
    CHECK(!plan_memory(big, segs).fits);
    // Two that fit separately go to different regions when they live together.
    std::vector<buffer> two{{300 * 1024, 0, 2}, {100 * 1024, 1, 3}};
    const auto p = plan_memory(two, segs);
    CHECK(p.fits);
    CHECK(p.placements[0].segment == 2);  // AXI: the only region that holds 300 KB
    CHECK(p.placements[1].segment == 0);  // DTCM, the fastest, for the other
}

TEST_CASE("examples/firmware/stm32h730.ld has the regions of the stm32h730 map") {
    const auto ld =
        std::filesystem::path(LITEGRAPH_TESTS_DIR) / "../examples/firmware/stm32h730.ld";
    const auto memory = read_memory(ld);
    const auto* m = find_memory_map("stm32h730");
    REQUIRE(m != nullptr);
    CHECK(memory.size() == m->regions.size());
    for (const auto& r : m->regions) {
        const auto it = memory.find(upper(r.name));
        REQUIRE_MESSAGE(it != memory.end(), "stm32h730.ld has no region " << upper(r.name));
        CHECK_MESSAGE(it->second.origin == r.origin, r.name);
        CHECK_MESSAGE(it->second.length == r.length, r.name);
    }
}
