/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * objects.c — the loaded objects: one walk of dl_iterate_phdr(3) for every
 * part of libmon that needs them (the object histograms, objhist.c; the
 * profile's object list, monitor.c), each object with its resolved path.
 *
 * The program is the first object (its dlpi_name is empty): its path is
 * the name it was run by (AT_EXECFN, when that is /proc/self/exe's file:
 * a symbolic link's name, not its target's), else /proc/self/exe's
 * target, unless that is not the program: a program
 * started through the dynamic loader ("/lib64/ld-linux-x86-64.so.2 ./prog"),
 * where /proc/self/exe is the loader and AT_EXECFN (getauxval(3): glibc's
 * loader sets it to the program it loaded) names another ELF file; or no
 * /proc at all (a container or jail without it), where AT_EXECFN is the only
 * name there is.  AT_EXECFN is made absolute against the working directory
 * of the first call (profiling starts before main).  The vDSO has a name but no file
 * ("linux-vdso.so.1", "linux-gate.so.1"; "[vdso]" when it has none).  An
 * object dlopen()ed by a relative name ("./plugin.so") gets the absolute
 * path of the file mapped at its first segment, from /proc/self/maps
 * (proc(5)), read through a fixed buffer.  A leaf: uses only alloc.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monout.h"
#include "objects.h"
#include "runtime.h"

/* The first ELF note of the object's PT_NOTE segments named name and of
 * type type: its descriptor's address and length, or NULL.  The name is
 * compared up to its first NUL: n_namesz counts the terminating NUL, and
 * Go's linker counts its padding too ("Go", n_namesz 4). */
static const unsigned char *find_note(const struct dl_phdr_info *info, const char *name,
				      unsigned type, size_t *len)
{
	size_t want = strlen(name);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			size_t namesz = (n->n_namesz + 3) & ~(size_t)3;
			size_t descsz = (n->n_descsz + 3) & ~(size_t)3;
			const unsigned char *nm = p + sizeof *n, *desc = nm + namesz;
			if (desc + descsz > end)
				break;
			if (n->n_type == type && n->n_namesz > want && memcmp(nm, name, want) == 0 &&
			    nm[want] == '\0') {
				*len = n->n_descsz;
				return desc;
			}
			p = desc + descsz;
		}
	}
	return NULL;
}

size_t mon_build_id(const struct dl_phdr_info *info, unsigned char *out, size_t cap)
{
	size_t len;
	const unsigned char *desc = find_note(info, "GNU", NT_GNU_BUILD_ID, &len);
	if (desc == NULL)
		return 0;
	if (len > cap)
		len = cap;
	memcpy(out, desc, len);
	return len;
}

/* Go's linker writes its build ID as a note named "Go", of type 4, in a
 * PT_NOTE segment of every ELF object it links: executables, and shared
 * objects built with -buildmode=c-shared (cmd/link's elf.go, ELF_NOTE_GOBUILDID_TAG). */
#define NOTE_GO_BUILD_ID 4u

/* n bytes of file fd at off into a buffer of mon_alloc's, or NULL (short
 * read, no memory).  Read, not mapped: a file cut short meanwhile gives a
 * short read, not SIGBUS. */
static void *read_at(int fd, uint64_t off, uint64_t n)
{
	if (n == 0 || n > ((uint64_t)1 << 30) || off > ((uint64_t)1 << 62))
		return NULL;
	unsigned char *b = mon_alloc((size_t)n);
	if (b == NULL)
		return NULL;
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(fd, b + got, (size_t)n - got, (off_t)(off + got));
		if (r <= 0) {
			mon_free(b);
			return NULL;
		}
		got += (size_t)r;
	}
	return b;
}

/* The value of the function symbol named one of names (NULL-ended, the
 * first named first: one named so wins over those after it) in the ELF
 * file at path's symbol table (.symtab: not loaded, read from the file),
 * or 0: no such symbol, no symbol table (a stripped file), not a 64-bit
 * ELF file, or not readable. */
static uintptr_t file_symbol(const char *path, const char *const *names)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh = NULL;
	uintptr_t found = 0;
	size_t rank = SIZE_MAX;	/* names[rank] gave found */
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0 ||
	    (sh = read_at(fd, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof *sh)) == NULL)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum && rank != 0; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh.e_shnum ||
		    sh[i].sh_entsize != sizeof(ElfW(Sym)))
			continue;
		const ElfW(Shdr) *str = &sh[sh[i].sh_link];
		ElfW(Sym) *sym = read_at(fd, sh[i].sh_offset, sh[i].sh_size);
		char *strs = sym != NULL ? read_at(fd, str->sh_offset, str->sh_size) : NULL;
		size_t nsym = sh[i].sh_size / sizeof(ElfW(Sym)), nstr = str->sh_size;
		for (size_t k = 0; strs != NULL && k < nsym && rank != 0; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_value == 0 ||
			    sym[k].st_name >= nstr)
				continue;
			const char *nm = strs + sym[k].st_name;
			size_t room = nstr - sym[k].st_name;
			for (size_t w = 0; names[w] != NULL && w < rank; w++) {
				size_t len = strlen(names[w]);
				if (len < room && memcmp(nm, names[w], len + 1) == 0) {
					found = (uintptr_t)sym[k].st_value;
					rank = w;
				}
			}
		}
		mon_free(strs);
		mon_free(sym);
	}
out:
	mon_free(sh);
	close(fd);
	return found;
}

/* Whether v (an address in the object's own terms, before the load bias)
 * lies in one of its executable PT_LOAD segments. */
static int in_code(const struct dl_phdr_info *info, uintptr_t v)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && v >= ph->p_vaddr &&
		    v - ph->p_vaddr < ph->p_memsz)
			return 1;
	}
	return 0;
}

struct go_found {
	int here;		/* an object with Go's note */
	uintptr_t preempt;	/* its runtime.asyncPreempt, 0: not found */
};

static int go_note_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	size_t len;
	if (find_note(info, "Go", NOTE_GO_BUILD_ID, &len) == NULL)
		return 0;
	*(int *)arg = 1;
	return 1;
}

static int go_runtime_of(const struct mon_object_info *o, void *arg)
{
	size_t len;
	if (o->vdso || find_note(o->phdr, "Go", NOTE_GO_BUILD_ID, &len) == NULL)
		return 0;
	struct go_found *g = arg;
	g->here = 1;
	/* The assembly function's name since Go 1.17's register ABI (".abi0":
	 * the address pushCall sends the goroutine to, abi.FuncPCABI0), and
	 * before it. */
	static const char *const names[] = { "runtime.asyncPreempt.abi0", "runtime.asyncPreempt",
					     NULL };
	/* (the file on disk may be another build than the one mapped: an
	 * address outside this one's code is not taken) */
	uintptr_t v = o->path != NULL ? file_symbol(o->path, names) : 0;
	if (v != 0 && in_code(o->phdr, v))
		g->preempt = o->phdr->dlpi_addr + v;
	return 1;
}

int mon_objects_go_runtime(uintptr_t *preempt)
{
	/* The notes first (in memory: cheap, after every dlopen), the file
	 * only once Go is here, and once a process (Go's runtime is not
	 * unloaded: it does not support it). */
	static int known;
	static uintptr_t known_preempt;
	if (__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
		*preempt = known_preempt;
		return 1;
	}
	int here = 0;
	struct go_found g = { 0, 0 };
	dl_iterate_phdr(go_note_of, &here);
	if (here) {
		mon_objects_each(go_runtime_of, &g);
		known_preempt = g.preempt;
		__atomic_store_n(&known, 1, __ATOMIC_RELEASE);
	}
	*preempt = g.preempt;
	return here;
}

/* name made absolute against the working directory, in mon_alloc memory. */
static char *absolute_name(const char *name)
{
	if (name[0] == '/')
		return mon_strdup(name);
	for (size_t cap = 256; cap <= ((size_t)1 << 20); cap *= 2) {
		char *b = mon_alloc(cap + strlen(name) + 2);
		if (b == NULL)
			return NULL;
		if (getcwd(b, cap) != NULL && b[0] == '/') {
			size_t n = strlen(b);
			if (b[n - 1] != '/')
				b[n++] = '/';
			strcpy(b + n, name[0] == '.' && name[1] == '/' ? name + 2 : name);
			return b;
		}
		mon_free(b);
		if (errno != ERANGE)
			break;
	}
	return mon_strdup(name);
}

/* 1 if path is an ELF file (its first four bytes). */
static int is_elf(const char *path)
{
	unsigned char m[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int yes = read(fd, m, sizeof m) == (ssize_t)sizeof m && memcmp(m, ELFMAG, SELFMAG) == 0;
	close(fd);
	return yes;
}

static char *proc_self_exe(void);

static char *self_exe_find(void);

/* The first call's answer, kept: AT_EXECFN may be relative, and a program
 * that changes its directory later must not get another name for itself
 * in a later file (the same series named the link, then its target). */
static char *self_exe_kept;

char *mon_self_exe(void)
{
	char *k = __atomic_load_n(&self_exe_kept, __ATOMIC_ACQUIRE);
	if (k == NULL) {
		char *r = self_exe_find();
		if (r == NULL)
			return NULL;
		char *none = NULL;
		if (!__atomic_compare_exchange_n(&self_exe_kept, &none, r, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			mon_free(r);	/* another thread's came first */
		k = __atomic_load_n(&self_exe_kept, __ATOMIC_ACQUIRE);
	}
	return mon_strdup(k);
}

static char *self_exe_find(void)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	char *exe = proc_self_exe();
	if (fn == NULL || fn[0] == '\0')
		return exe;
	if (exe == NULL)
		return absolute_name(fn);	/* no /proc */
	struct stat a, b;
	if (stat(exe, &a) != 0 || stat(fn, &b) != 0)
		return exe;
	int same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	/* Another ELF file than the one the kernel ran: the program the
	 * dynamic loader was asked to run (a script's AT_EXECFN is not ELF:
	 * its interpreter is the program).  The same file by another name: a
	 * symbolic link the program was run by (Debian's redis-server, a link
	 * to redis-check-rdb), the name its user knows it by and the one a
	 * report should show (prof still takes the target's name), but for
	 * a name the kernel makes up for the file: /proc/self/exe (a program
	 * that runs itself again through it), /dev/fd/N (fexecve). */
	int made_up = strncmp(fn, "/proc/", 6) == 0 || strncmp(fn, "/dev/fd/", 8) == 0;
	if ((!same && is_elf(fn)) || (same && !made_up && strcmp(fn, exe) != 0)) {
		char *r = absolute_name(fn);
		if (r != NULL) {
			mon_free(exe);
			return r;
		}
	}
	return exe;
}

static char *proc_self_exe(void)
{
	for (size_t cap = 256;; cap *= 2) {
		char *b = mon_alloc(cap);
		if (b == NULL)
			return NULL;
		ssize_t n = readlink("/proc/self/exe", b, cap);
		if (n >= 0 && (size_t)n < cap) {
			b[n] = '\0';
			return b;
		}
		mon_free(b);
		if (n < 0)
			return NULL;
	}
}

int mon_hexval(const char **p, uint64_t *out)
{
	const char *c = *p;
	uint64_t v = 0;
	int any = 0;
	if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X'))
		c += 2;
	for (;; c++, any = 1) {
		int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			: *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v * 16 + (uint64_t)d;
	}
	*p = c;
	*out = v;
	return any;
}

/* Parse "LO-HI perms offset dev inode   path" of /proc/self/maps (proc(5)):
 * the path when [LO, HI) holds addr, else NULL. */
static const char *maps_line_path(char *l, uintptr_t addr)
{
	uint64_t lo = 0, hi = 0;
	const char *c = l;
	if (!mon_hexval(&c, &lo) || *c++ != '-' || !mon_hexval(&c, &hi) || addr < lo || addr >= hi)
		return NULL;
	for (int field = 0; field < 4; field++) {	/* perms offset dev inode */
		while (*c == ' ')
			c++;
		while (*c && *c != ' ')
			c++;
	}
	while (*c == ' ')
		c++;
	return *c == '/' ? c : NULL;
}

struct path_find {
	uintptr_t addr;
	char *out;
	size_t cap;
};

/* mon_fd_each_line's callback: 1 (stop) once the line of the mapping
 * holding f->addr gave its path. */
static int maps_line_find(char *line, size_t len, void *arg)
{
	(void)len;
	struct path_find *f = arg;
	const char *p = maps_line_path(line, f->addr);
	if (p == NULL)
		return 0;
	size_t n = strnlen(p, f->cap - 1);
	memcpy(f->out, p, n);
	f->out[n] = '\0';
	return 1;
}

static int object_path(const struct dl_phdr_info *info, const char *name, char *out, size_t cap)
{
	if (cap == 0)
		return -1;
	if (name[0] == '/' || name[0] == '\0' || strncmp(name, "linux-", 6) == 0) {
		size_t n = strnlen(name, cap - 1);
		memcpy(out, name, n);
		out[n] = '\0';
		return 0;
	}
	/* A relative name (dlopen("./plugin.so")): the kernel's absolute path
	 * of the file mapped at the object's first segment. */
	uintptr_t addr = 0;
	for (int i = 0; i < info->dlpi_phnum && addr == 0; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD)
			addr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	struct path_find find = { addr, out, cap };
	int found = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		found = mon_fd_each_line(fd, maps_line_find, &find) > 0;
		close(fd);
	}
	if (!found) {
		/* No /proc: the name against the working directory (what the
		 * loader opened it by, unless the program has moved since). */
		char *a = absolute_name(name);
		const char *src = a != NULL ? a : name;
		size_t n = strnlen(src, cap - 1);
		memcpy(out, src, n);
		out[n] = '\0';
		mon_free(a);
	}
	return found ? 0 : -1;
}

unsigned mon_object_file_id(const struct mon_object_info *oi, uint64_t *size,
			    uint64_t *mtime_ns, uint32_t *text_crc)
{
	unsigned flags = 0;
	if (oi->vdso || oi->path == NULL || oi->path[0] != '/')
		return 0;
	struct stat st;
	if (stat(oi->path, &st) == 0) {
		*size = (uint64_t)st.st_size;
		*mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
		flags |= MONOUT_FILE_STAT;
	}
	const struct dl_phdr_info *info = oi->phdr;
	uint32_t crc = 0;
	int any = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !(ph->p_flags & PF_R))
			continue;
		crc = monout_crc32(crc, (const void *)(info->dlpi_addr + ph->p_vaddr),
				   (size_t)ph->p_filesz);
		any = 1;
	}
	if (any) {
		*text_crc = crc;
		flags |= MONOUT_FILE_TEXT;
	}
	return flags;
}

struct walk {
	int (*fn)(const struct mon_object_info *o, void *arg);
	void *arg;
	int n;
};

static int each_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct walk *w = arg;
	struct mon_object_info o = { info, NULL, w->n == 0, 0 };
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	char *exe = NULL;
	char abs[4096];
	w->n++;
	if (o.main) {
		exe = mon_self_exe();
		o.path = exe;
	} else {
		o.vdso = strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0 ||
			 name[0] == '\0';
		object_path(info, name, abs, sizeof abs);
		o.path = abs[0] ? abs : "[vdso]";
	}
	int rc = w->fn(&o, w->arg);
	mon_free(exe);
	return rc;
}

static int adds_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(unsigned long long *)arg =
		size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds ? info->dlpi_adds
											: 0;
	return 1;	/* the first object is enough */
}

unsigned long long mon_objects_loads(void)
{
	unsigned long long n = 0;
	dl_iterate_phdr(adds_of, &n);
	return n;
}

int mon_objects_each(int (*fn)(const struct mon_object_info *o, void *arg), void *arg)
{
	struct walk w = { fn, arg, 0 };
	return dl_iterate_phdr(each_one, &w);
}
