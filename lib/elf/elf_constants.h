// The ELF constants abicheck reads, with the spec's names (we do not depend on the host's <elf.h>
// so that the reader's meaning does not change with the build machine).
#ifndef ABICHECK_LIB_ELF_ELF_CONSTANTS_H_
#define ABICHECK_LIB_ELF_ELF_CONSTANTS_H_

#include <cstdint>

namespace abicheck::elf {

inline constexpr uint8_t ELFCLASS32 = 1, ELFCLASS64 = 2;
inline constexpr uint8_t ELFDATA2LSB = 1, ELFDATA2MSB = 2;
inline constexpr uint16_t ET_EXEC = 2, ET_DYN = 3;
inline constexpr int EI_CLASS = 4, EI_DATA = 5, EI_VERSION = 6, EI_OSABI = 7, EI_ABIVERSION = 8,
                     EI_PAD = 9, EI_NIDENT = 16;
inline constexpr uint8_t EV_CURRENT = 1, ELFOSABI_SYSV = 0, ELFOSABI_GNU = 3;
inline constexpr uint16_t EM_386 = 3, EM_ARM = 40, EM_X86_64 = 62, EM_AARCH64 = 183, EM_PPC64 = 21,
                          EM_S390 = 22, EM_RISCV = 243;
inline constexpr uint16_t PN_XNUM = 0xffff;

inline constexpr uint32_t PT_LOAD = 1, PT_DYNAMIC = 2, PT_TLS = 7, PT_GNU_STACK = 0x6474e551,
                          PT_GNU_PROPERTY = 0x6474e553;
// .note.gnu.property: NT_GNU_PROPERTY_TYPE_0 and the x86 ISA level an object needs.
inline constexpr uint32_t NT_GNU_PROPERTY_TYPE_0 = 5, GNU_PROPERTY_X86_ISA_1_NEEDED = 0xc0008002;
inline constexpr uint32_t PF_X = 1, PF_W = 2;

inline constexpr int64_t DT_NULL = 0, DT_NEEDED = 1, DT_PLTRELSZ = 2, DT_HASH = 4, DT_STRTAB = 5,
                         DT_SYMTAB = 6, DT_RELA = 7, DT_RELASZ = 8, DT_RELAENT = 9, DT_STRSZ = 10,
                         DT_SYMENT = 11, DT_SONAME = 14, DT_RPATH = 15, DT_REL = 17, DT_RELSZ = 18,
                         DT_RELENT = 19, DT_PLTREL = 20, DT_TEXTREL = 22, DT_JMPREL = 23,
                         DT_INIT = 12, DT_FINI = 13, DT_INIT_ARRAY = 25, DT_FINI_ARRAY = 26,
                         DT_INIT_ARRAYSZ = 27, DT_FINI_ARRAYSZ = 28, DT_RUNPATH = 29, DT_FLAGS = 30,
                         DT_RELACOUNT = 0x6ffffff9, DT_GNU_HASH = 0x6ffffef5,
                         DT_VERSYM = 0x6ffffff0, DT_FLAGS_1 = 0x6ffffffb, DT_VERDEF = 0x6ffffffc,
                         DT_VERDEFNUM = 0x6ffffffd, DT_VERNEED = 0x6ffffffe,
                         DT_VERNEEDNUM = 0x6fffffff, DT_AUXILIARY = 0x7ffffffd,
                         DT_FILTER = 0x7fffffff;
inline constexpr uint64_t DF_TEXTREL = 0x4;
inline constexpr uint64_t DF_1_NOOPEN = 0x40, DF_1_NODEFLIB = 0x800, DF_1_PIE = 0x08000000;

inline constexpr uint16_t SHN_UNDEF = 0, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2;
inline constexpr uint8_t STB_LOCAL = 0, STB_GLOBAL = 1, STB_WEAK = 2, STB_GNU_UNIQUE = 10;
inline constexpr uint8_t STT_NOTYPE = 0, STT_OBJECT = 1, STT_FUNC = 2, STT_SECTION = 3,
                         STT_FILE = 4, STT_COMMON = 5, STT_TLS = 6, STT_GNU_IFUNC = 10;
inline constexpr uint8_t STV_DEFAULT = 0, STV_INTERNAL = 1, STV_HIDDEN = 2, STV_PROTECTED = 3;

// x86-64 relocation types glibc's elf_machine_rela applies (docs/loader-model.md B7).
inline constexpr uint32_t R_X86_64_NONE = 0, R_X86_64_64 = 1, R_X86_64_PC32 = 2, R_X86_64_COPY = 5,
                          R_X86_64_GLOB_DAT = 6, R_X86_64_JUMP_SLOT = 7, R_X86_64_RELATIVE = 8,
                          R_X86_64_32 = 10, R_X86_64_DTPMOD64 = 16, R_X86_64_DTPOFF64 = 17,
                          R_X86_64_TPOFF64 = 18, R_X86_64_SIZE32 = 32, R_X86_64_SIZE64 = 33,
                          R_X86_64_TLSDESC = 36, R_X86_64_IRELATIVE = 37, R_X86_64_RELATIVE64 = 38;

inline constexpr uint16_t VER_NDX_LOCAL = 0, VER_NDX_GLOBAL = 1, VERSYM_HIDDEN = 0x8000;
inline constexpr uint16_t VER_FLG_BASE = 1, VER_FLG_WEAK = 2;

}  // namespace abicheck::elf

#endif  // ABICHECK_LIB_ELF_ELF_CONSTANTS_H_
