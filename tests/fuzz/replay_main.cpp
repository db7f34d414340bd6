// The harnesses without libFuzzer: runs LLVMFuzzerTestOneInput once on every file named on the command
// line (a folder: on every file in it, in name order) and prints how many ran. Lets the ordinary test
// passes, sanitizers included, replay the seed corpus and the kept crash inputs with any compiler.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace
{

void run(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
    {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        std::exit(2);
    }
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

} // namespace

int main(int argc, char** argv)
{
    std::size_t count = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::filesystem::path argument = argv[i];
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(argument))
        {
            for (const auto& entry : std::filesystem::directory_iterator(argument))
                if (entry.is_regular_file())
                    files.push_back(entry.path());
            std::sort(files.begin(), files.end());
        }
        else
            files.push_back(argument);
        for (const auto& file : files)
        {
            run(file);
            ++count;
        }
    }
    std::printf("replay: %zu inputs, no crash\n", count);
    return count > 0 ? 0 : 1;
}
