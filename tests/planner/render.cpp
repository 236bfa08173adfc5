#include "litegraph/planner/render.hpp"

#include "litegraph/planner/json.hpp"
#include "support.hpp"

using namespace litegraph::planner;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}
}  // namespace

TEST_CASE("the SVG has one panel per segment, a labelled box per buffer and the LOAD line") {
    std::vector<buffer> b{{4096, 0, 1}, {4096, 1, 2}, {8192, 2, 3}, {1024, 0, 3, 1}};
    std::vector<segment> segs{{"dtcm", 8192, 64}, {"sram", unbounded, 64}};
    auto p = plan_memory(b, segs);
    REQUIRE(validate(b, segs, p).ok);
    std::vector<std::string> names{"conv1", "relu<1>", "pool", "pinned"};
    auto svg = render_svg(b, segs, p, names);
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(count(svg, "class=\"segment\"") == 2);
    CHECK(count(svg, "class=\"buffer\"") == 4);
    CHECK(count(svg, "class=\"load\"") == 2);
    CHECK(svg.find(">conv1<") != std::string::npos);
    CHECK(svg.find("relu&lt;1&gt;") != std::string::npos);
    CHECK(svg.find("dtcm: ") != std::string::npos);
}

TEST_CASE("an inset's parts are drawn inside their holder and in a labelled panel of their own") {
    std::vector<buffer> b{{4096, 0, 1}, {8192, 1, 1}, {4096, 2, 3}};
    std::vector<segment> segs{{"sram", unbounded, 64}};
    auto p = plan_memory(b, segs);
    REQUIRE(validate(b, segs, p).ok);
    inset in;
    in.holder = 1;
    in.title = "scratch of stage<1>";
    in.parts = {{4096, 0, 1}, {2048, 1, 2}, {1024, 2, 2}};
    in.offsets = {0, 4096, 0};
    in.names = {"conv1 patch", "pool patch", "crop"};
    auto svg = render_svg(b, segs, p, {}, std::span<const inset>(&in, 1));
    CHECK(count(svg, "class=\"segment\"") == 1);
    CHECK(count(svg, "class=\"inset\"") == 1);
    CHECK(count(svg, "class=\"part\"") == 6);
    CHECK(svg.find("scratch of stage&lt;1&gt;") != std::string::npos);
    CHECK(svg.find(">pool patch<") != std::string::npos);
    // Without insets nothing of them is drawn.
    auto plain = render_svg(b, segs, p);
    CHECK(count(plain, "class=\"part\"") == 0);
    CHECK(count(plain, "class=\"inset\"") == 0);
}

TEST_CASE("the JSON form carries placements, LOAD and the verdict") {
    std::vector<buffer> b{{100, 0, 1}, {200, 1, 2}, {50, 0, 0, -1, 1, 16}};
    std::vector<segment> segs{{"arena", unbounded, 1}};
    auto p = plan_memory(b, segs);
    auto j = plan_to_json(b, segs, p);
    CHECK(j["buffers"].size() == 3);
    CHECK(j["load"] == lower_bound(b));
    CHECK(j["total"] == p.total());
    CHECK(j["valid"] == true);
    CHECK(j["buffers"][2]["alias_of"] == 1);
    CHECK(j["buffers"][2]["offset"] == p.placements[1].offset + 16);
    CHECK(j["segments"][0]["capacity"].is_null());
    CHECK(j["algorithm"].get<std::string>().size() > 0);
}
