// The CLI on inputs a user hands it by mistake (issue 22): a Fortran-order
// .npy (read, converted to C order), an empty batch (refused, naming the
// input), a shape whose plan is larger than the machine or the cap (refused
// before allocating, naming the bytes), and --max-arena-bytes.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "litegraph/core/npy.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using namespace litegraph;
using test::run_cli;

namespace {

fs::path scratch() {
    auto p = fs::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "bad_inputs";
    fs::create_directories(p);
    return p;
}

/// `t` written as a Fortran-order .npy (what numpy writes for a transposed
/// array): the header says fortran_order True, the data is column-major.
void save_fortran_npy(const fs::path& p, const tensor& t) {
    const auto& s = t.shape();
    std::string shape = "(";
    for (auto d : s) shape += std::to_string(d) + ", ";
    shape += ")";
    std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    // Column-major: the first index moves fastest.
    const auto v = t.span<float>();
    std::vector<std::int64_t> idx(s.size(), 0);
    std::vector<float> cm(v.size());
    for (std::size_t e = 0; e < v.size(); ++e) {
        std::size_t c = 0;  // C-order offset of idx
        for (std::size_t k = 0; k < s.size(); ++k) c = c * std::size_t(s[k]) + std::size_t(idx[k]);
        cm[e] = v[c];
        for (std::size_t k = 0; k < s.size(); ++k) {
            if (++idx[k] < s[k]) break;
            idx[k] = 0;
        }
    }
    out.append(reinterpret_cast<const char*>(cm.data()), cm.size() * sizeof(float));
    std::ofstream(p, std::ios::binary) << out;
}

}  // namespace

TEST_CASE("run reads a Fortran-order .npy input: the same outputs as the C-order file") {
    auto model = test::shared_model("ppocr_mobile_v2.0_cls");
    if (model.empty()) return;
    const auto dir = scratch();
    auto x = test::random_tensor({2, 3, 48, 192}, 11);
    save_npy(dir / "c.npy", x.ref());
    save_fortran_npy(dir / "f.npy", x);
    auto c = run_cli("run '" + model.string() + "' --input x=" + (dir / "c.npy").string() +
                     " --output-dir " + (dir / "c").string() + " --json");
    auto f = run_cli("run '" + model.string() + "' --input x=" + (dir / "f.npy").string() +
                     " --output-dir " + (dir / "f").string() + " --json");
    REQUIRE_MESSAGE(c.code == 0, c.out);
    REQUIRE_MESSAGE(f.code == 0, f.out);
    auto yc = load_npy(dir / "c" / "output_0.npy");
    auto yf = load_npy(dir / "f" / "output_0.npy");
    REQUIRE(yc.shape() == shape_t{2, 2});
    CHECK(yf.shape() == yc.shape());
    CHECK(test::max_abs_diff(yc.span<float>(), yf.span<float>()) == 0);
}

TEST_CASE("run refuses an empty batch, naming the input") {
    auto model = test::shared_model("ppocr_mobile_v2.0_cls");
    if (model.empty()) return;
    const auto dir = scratch();
    save_npy(dir / "empty.npy", tensor(dtype::f32, {0, 3, 48, 192}).ref());
    auto r = run_cli("run '" + model.string() + "' --input x=" + (dir / "empty.npy").string());
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.out.find("input 'x' is empty (shape [0,3,48,192])") != std::string::npos,
                  r.out);
    CHECK(r.out.find("in place") == std::string::npos);
}

TEST_CASE("run refuses a plan over the memory or the cap before allocating, naming the bytes") {
    auto model = test::shared_model("ppocr_mobile_v2.0_cls");
    if (model.empty()) return;
    // 57.6 GB of input alone: over the default 16 GiB cap.
    auto r = run_cli("run '" + model.string() + "' --shape x=1,3,48,99999999");
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.out.find("the plan needs an arena of ") != std::string::npos, r.out);
    CHECK(r.out.find("over the cap of 17179869184 bytes") != std::string::npos);
    CHECK(r.out.find("bad_alloc") == std::string::npos);
    // A cap above it: the memory available is what refuses (no machine here
    // has 100 GB free).
    r = run_cli("run '" + model.string() +
                "' --shape x=1,3,48,99999999 --max-arena-bytes 1125899906842624");
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.out.find("over the memory available") != std::string::npos, r.out);
    CHECK(r.out.find("bad_alloc") == std::string::npos);
}

TEST_CASE("run --max-arena-bytes refuses a model whose planned arena is over it") {
    auto model = test::shared_model("ppocr_mobile_v2.0_cls");
    if (model.empty()) return;
    auto ok = run_cli("run '" + model.string() + "' --json");
    REQUIRE(ok.code == 0);
    const auto j = nlohmann::json::parse(ok.out);
    const auto arena = j["memory"]["arena_bytes"].get<std::uint64_t>();
    REQUIRE(arena > 0);
    auto r = run_cli("run '" + model.string() + "' --max-arena-bytes " + std::to_string(arena - 1));
    CHECK(r.code == 1);
    CHECK_MESSAGE(r.out.find("the plan needs an arena of " + std::to_string(arena) +
                             " bytes, over the cap of " + std::to_string(arena - 1) +
                             " bytes (--max-arena-bytes)") != std::string::npos,
                  r.out);
    CHECK(run_cli("run '" + model.string() + "' --max-arena-bytes " + std::to_string(arena)).code ==
          0);
    CHECK(run_cli("run '" + model.string() + "' --max-arena-bytes 0").code == 2);
    CHECK(run_cli("run --help").out.find("--max-arena-bytes N") != std::string::npos);
}
