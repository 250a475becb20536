/*
 * tar.h: the POSIX tar format (ustar headers, pax extended headers for what
 * does not fit them), written and read as a stream of 512-byte blocks.
 *
 *   header block: name[100] mode[8] uid[8] gid[8] size[12] mtime[12]
 *                 chksum[8] typeflag[1] linkname[100] magic[6] "ustar\0"
 *                 version[2] "00" uname[32] gname[32] devmajor[8]
 *                 devminor[8] prefix[155] (pad to 512)
 *   then the member's data, padded with zeros to a multiple of 512;
 *   the archive ends with two zero blocks.
 *
 * A name or link target longer than the header's 100 bytes, or a size of
 * 8 GiB or more, goes into a pax 'x' member just before the member it
 * describes ("LEN path=NAME\n", "linkpath=", "size="): what GNU tar, bsdtar
 * and Python's tarfile read. The writer hands its bytes to a callback (the
 * archive compresses them); the reader pulls bytes from one.
 *
 * The reader takes input it cannot trust: every header's checksum, octal
 * fields and pax records are checked, pax data is capped at
 * TAR_PAX_MAX bytes and names at TAR_NAME_MAX, and nothing is allocated by
 * a size read from the input. Regular files, directories, symbolic links
 * and pax headers are the members it knows; others are refused.
 */
#ifndef SCORCH_ARCHIVE_TAR_H
#define SCORCH_ARCHIVE_TAR_H

#include "util/err.h"
#include <stddef.h>
#include <stdint.h>

#define TAR_BLOCK 512
#define TAR_NAME_MAX 4096
#define TAR_PAX_MAX 65536

struct tar_w {
	/* Write n bytes; 0 or a negative code. */
	int (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
	uint64_t off; /* bytes written so far */
};

/* A regular file name of size bytes, its data read from fd (from its
 * current position). -EIO when fd ends early. 0 or a negative code. */
int tar_w_file(struct tar_w *t, const char *name, uint64_t size, int64_t mtime, int fd);
/* A regular file from memory. */
int tar_w_mem(struct tar_w *t, const char *name, const void *p, size_t n, int64_t mtime);
/* A symbolic link name -> target. */
int tar_w_symlink(struct tar_w *t, const char *name, const char *target, int64_t mtime);
/* The end-of-archive blocks. */
int tar_w_end(struct tar_w *t);

enum tar_type { TAR_FILE, TAR_DIR, TAR_SYMLINK };

struct tar_member {
	enum tar_type type;
	char name[TAR_NAME_MAX];
	char link[TAR_NAME_MAX];  /* TAR_SYMLINK: the target */
	uint64_t size;            /* TAR_FILE: bytes of data */
	uint64_t off;             /* offset of its header block in the stream */
};

struct tar_r {
	/* Read up to n bytes into p: the number read (less than n only at the
	 * end of the input), or a negative code with e filled. */
	int64_t (*read)(void *ctx, void *p, size_t n, struct err *e);
	void *ctx;
	uint64_t off;     /* bytes consumed so far */
	uint64_t left;    /* data of the current member not yet read */
	uint64_t pad;     /* its padding */
	unsigned members; /* headers read (pax ones included) */
	unsigned max_members;
	uint64_t max_size; /* largest member allowed */
	char *pax;        /* TAR_PAX_MAX bytes, made on first use */
};

/* The next member into *m (the rest of the previous one skipped): 1, or 0
 * at the end-of-archive blocks, or a negative code with e filled (at the
 * offset of the bad header or of the end of a truncated input). */
int tar_r_next(struct tar_r *t, struct tar_member *m, struct err *e);
/* Up to n bytes of the current member's data (n capped at what is left):
 * the number read (0: none left), or a negative code with e filled (a
 * stream that ends inside the data: truncated). */
int64_t tar_r_data(struct tar_r *t, void *p, size_t n, struct err *e);
/* Free what the reader made. */
void tar_r_release(struct tar_r *t);

#endif
