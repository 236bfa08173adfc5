// Broken model files: every one is a typed error naming the file (and, for a
// malformed file, the byte offset at fault); none crashes or allocates wildly.
#include <cstring>

#include "loader/paddle_support.hpp"

using namespace litegraph;

namespace loader_paddle_broken_test {
namespace fs = std::filesystem;

namespace {

bool names(const std::exception& e, const std::string& what) {
    return std::string(e.what()).find(what) != std::string::npos;
}

/// A copy of lenet (combined), or empty when the shared models are absent.
fs::path lenet_copy(const std::string& name) {
    auto src = test::shared_model("lenet_mnist");
    return src.empty() ? src : test::copy_model(src, name);
}

void put_varint(std::string& s, std::uint64_t v) {
    while (v >= 0x80) {
        s += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    s += static_cast<char>(v);
}

template <class T>
void put(std::string& s, T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

/// A parameter record written by hand: FP32 with `dims`, `data_bytes` zero bytes.
std::string record(const std::vector<std::int64_t>& dims, std::size_t data_bytes,
                   std::uint64_t lod_levels = 0, std::int32_t desc_size_override = 0) {
    std::string desc;
    desc += '\x08';
    put_varint(desc, 5);  // FP32
    for (auto d : dims) {
        desc += '\x10';
        put_varint(desc, static_cast<std::uint64_t>(d));
    }
    std::string r;
    put(r, std::uint32_t{0});
    put(r, lod_levels);
    put(r, std::uint32_t{0});
    put(r, desc_size_override ? desc_size_override : static_cast<std::int32_t>(desc.size()));
    r += desc;
    r.append(data_bytes, '\0');
    return r;
}

/// A tiny model folder (x + w -> y) whose only parameter 'w' is declared `dims`;
/// its params file holds `params` as given.
fs::path tiny_model(const std::string& name, const shape_t& dims, const std::string& params) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", dims);
    b.declare("y", dims);
    graph::var_node w;
    w.name = "w";
    w.shape = dims;
    w.persistable = true;
    b.declare(std::move(w));
    b.feed("x", 0);
    b.add_op("elementwise_add", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    auto dir = test::scratch(name);
    test::write_bytes(dir / "model.pdmodel", paddle::serialize_program(g));
    test::write_bytes(dir / "model.pdiparams", params);
    return dir;
}

format_error params_error(const fs::path& dir) {
    return test::expect_error<format_error>([&] { paddle::load(dir); });
}

}  // namespace

TEST_CASE("truncated combined params: a format error at the end of the data") {
    auto dir = lenet_copy("broken_truncated");
    if (dir.empty()) return;
    const auto file = dir / "mnist.pdiparams";
    const auto original = test::read_bytes(file);
    for (std::size_t size : {std::size_t{0}, std::size_t{3}, std::size_t{19}, std::size_t{23},
                             original.size() / 2, original.size() - 100, original.size() - 1}) {
        CAPTURE(size);
        test::write_bytes(file, original.substr(0, size));
        auto e = params_error(dir);
        CHECK(e.file() == file.string());
        CHECK(names(e, "mnist.pdiparams"));
        CHECK(names(e, "at byte"));
        CHECK(e.offset() <= size);
    }
    test::write_bytes(file, original.substr(0, 0));
    CHECK(params_error(dir).offset() == 0);  // an empty file
}

TEST_CASE("trailing bytes after the last record: a format error at the first extra byte") {
    auto dir = lenet_copy("broken_trailing");
    if (dir.empty()) return;
    const auto file = dir / "mnist.pdiparams";
    const auto original = test::read_bytes(file);
    test::write_bytes(file, original + "junk");
    auto e = params_error(dir);
    CHECK(e.file() == file.string());
    CHECK(e.offset() == original.size());
    CHECK(names(e, "4 trailing bytes"));

    auto src = test::shared_model("serving_uci_housing_fit_a_line");
    if (src.empty()) return;
    auto sep = test::copy_model(src, "broken_trailing_separate");
    const auto w = test::read_bytes(sep / "fc_0.w_0");
    test::write_bytes(sep / "fc_0.w_0", w + std::string(1, '\0'));
    auto es = params_error(sep);
    CHECK(es.file() == (sep / "fc_0.w_0").string());
    CHECK(es.offset() == w.size());
}

TEST_CASE("a missing or empty separate parameter file is named") {
    auto src = test::shared_model("serving_uci_housing_fit_a_line");
    if (src.empty()) return;
    auto dir = test::copy_model(src, "broken_missing_separate");
    fs::remove(dir / "fc_0.b_0");
    auto e = test::expect_error<io_error>([&] { paddle::load(dir); });
    CHECK(names(e, (dir / "fc_0.b_0").string()));
    CHECK(names(e, "'fc_0.b_0'"));
    // Not required: the other parameter still loads.
    auto m = paddle::load(dir, {.require_params = false});
    CHECK(m.info.format == "separate");
    CHECK(m.info.num_params == 1);

    test::write_bytes(dir / "fc_0.b_0", "");
    auto empty = params_error(dir);
    CHECK(empty.file() == (dir / "fc_0.b_0").string());
    CHECK(empty.offset() == 0);
}

TEST_CASE("a record whose dims or dtype disagree with the topology names the variable") {
    auto dir = lenet_copy("broken_dims");
    if (dir.empty()) return;
    const auto file = dir / "mnist.pdiparams";
    const auto original = test::read_bytes(file);
    // The first record (byte-wise first name) is a bias: TensorDesc 08 05 10 06 at byte 20.
    auto m = paddle::load(lenet_copy("broken_dims_names"));
    std::string first;
    for (auto& v : m.graph.vars)
        if (v.persistable && (first.empty() || v.name < first)) first = v.name;
    REQUIRE(original.substr(20, 4) == std::string("\x08\x05\x10\x06", 4));

    auto data = original;
    data[23] = 7;  // dims [6] -> [7]
    test::write_bytes(file, data);
    auto e = params_error(dir);
    CHECK(e.file() == file.string());
    CHECK(e.offset() == 20);
    CHECK(names(e, "'" + first + "'"));
    CHECK(names(e, "[7]"));

    data = original;
    data[21] = 6;  // FP32 -> FP64
    test::write_bytes(file, data);
    auto t = params_error(dir);
    CHECK(t.offset() == 20);
    CHECK(names(t, "float64"));
    CHECK(names(t, "'" + first + "'"));
}

TEST_CASE("hostile record headers are caught before any allocation") {
    const shape_t big{1 << 20, 1 << 20};  // 4 TiB of floats, declared as such
    auto e = params_error(tiny_model("hostile_big", big, record(big, 4)));
    CHECK(names(e, "needs 4398046511104 bytes"));
    CHECK(names(e, "model.pdiparams"));

    auto lod = params_error(tiny_model("hostile_lod", {2}, record({2}, 8, 1ull << 60)));
    CHECK(lod.offset() == 4);
    auto desc = params_error(tiny_model("hostile_desc", {2}, record({2}, 8, 0, 0x7fffffff)));
    CHECK(desc.offset() == 16);
    auto neg = params_error(tiny_model("hostile_negative", {2}, record({-2}, 8)));
    CHECK(names(neg, "negative dim"));
    shape_t rank17(17, 1);
    auto rank = params_error(tiny_model("hostile_rank", rank17, record(rank17, 4)));
    CHECK(names(rank, "17 dims"));
    auto version = record({2}, 8);
    version[0] = 1;
    CHECK(params_error(tiny_model("hostile_version", {2}, version)).offset() == 0);
    // A good record for comparison loads.
    auto ok = paddle::load(tiny_model("hostile_none", {2}, record({2}, 8)));
    CHECK(ok.info.num_params == 1);
}

TEST_CASE("the wire walker locates the first structural fault") {
    const auto* d = paddle::schema::get().program;
    auto at = [&](const std::string& s) {
        auto f = paddle::find_wire_fault(s.data(), s.size(), d);
        return f ? static_cast<long long>(f->offset) : -1;
    };
    CHECK(at("") == -1);
    CHECK(at(std::string("\x0a\x05"
                         "abc",
                         5)) == 1);  // length past the end
    CHECK(at(std::string("\x0f", 1)) == 0);
    CHECK(at(std::string("\x20\x00", 2)) ==
          0);  // version (a message) as a varint      // wire type 7
    CHECK(at(std::string("\x30\x80", 2)) == 1);          // unknown field 6: truncated varint
    CHECK(at(std::string("\x0a\x02\x08\xff", 4)) == 3);  // nested: BlockDesc.idx varint cut
    CHECK(at(std::string("\x0a\x02\x0d\x00", 4)) == 2);  // BlockDesc.idx with a fixed32 wire type
}

TEST_CASE("a corrupt topology: a format error naming the file and offset, never a crash") {
    auto dir = lenet_copy("broken_topology");
    if (dir.empty()) return;
    const auto file = dir / "mnist.pdmodel";
    const auto original = test::read_bytes(file);
    auto topo_error = [&](const std::string& bytes) {
        test::write_bytes(file, bytes);
        auto e = test::expect_error<format_error>([&] { paddle::load(dir); });
        CHECK(e.file() == file.string());
        CHECK(names(e, "mnist.pdmodel"));
        return e;
    };
    CHECK(topo_error(std::string(16, '\xff') + original.substr(16)).offset() == 0);
    // A field whose length runs past the end, appended to a valid program.
    CHECK(topo_error(original + std::string("\x0a\xff\xff\x03", 4)).offset() ==
          original.size() + 1);
    auto half = topo_error(original.substr(0, original.size() / 2));
    CHECK(half.offset() > 0);
    CHECK(half.offset() < original.size() / 2);
    CHECK(names(topo_error(""), "no blocks"));
    // Garbage anywhere: loads, or a typed litegraph error; nothing else.
    for (std::size_t pos = 0; pos < original.size(); pos += original.size() / 211 + 1) {
        auto data = original;
        for (std::size_t k = pos; k < std::min(pos + 8, data.size()); ++k)
            data[k] = static_cast<char>(data[k] ^ 0xa5);
        test::write_bytes(file, data);
        CAPTURE(pos);
        try {
            paddle::load(dir);
        } catch (const litegraph::error&) {
        }
    }
}

TEST_CASE("flipped bytes in parameter headers: a typed error or a load, never a crash") {
    auto dir = lenet_copy("broken_params_fuzz");
    if (dir.empty()) return;
    const auto file = dir / "mnist.pdiparams";
    const auto original = test::read_bytes(file);
    for (std::size_t pos = 0; pos < 64; ++pos)
        for (unsigned char mask : {0x01, 0x80, 0xff}) {
            auto data = original;
            data[pos] = static_cast<char>(data[pos] ^ mask);
            test::write_bytes(file, data);
            CAPTURE(pos);
            try {
                paddle::load(dir);
            } catch (const litegraph::error&) {
            }
        }
}

}  // namespace loader_paddle_broken_test
