// Debian's LIEF 0.9 listing the dynamic symbols of a file: the comparison point of the README.
#include <LIEF/ELF.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::unique_ptr<LIEF::ELF::Binary> b = LIEF::ELF::Parser::parse(argv[1]);
  size_t n = 0;
  for (const LIEF::ELF::Symbol& s : b->dynamic_symbols()) n += s.name().size() > 0;
  std::printf("%zu dynamic symbols\n", n);
  return 0;
}
