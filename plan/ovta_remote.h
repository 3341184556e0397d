/* ovta_remote.h: remote runs (plan/): a plan folder run on another machine (a board) by
 * `ovta-rt serve`, driven from `ovta run|profile|eval --remote HOST:PORT` - what TVM's RPC does
 * for TVM. POSIX TCP sockets, no dependency beyond the plan runtime and cJSON.
 * May include: ovta_plan.h (and what it includes).
 *
 * Sections:
 *   1. Protocol - frames, their parser over a byte buffer, payload codecs, socket I/O, the
 *                 token file, file names (remote.c; the wire format is documented there)
 *   2. Server   - `ovta-rt serve` (serve.c)
 *   3. Client   - a session: connect, send the plan (unless the server has it), run (client.c)
 */
#ifndef OVTA_REMOTE_H
#define OVTA_REMOTE_H

#include <cjson/cJSON.h>

#include "ovta_plan.h"

/* ---------------------------------------------------------------- 1. Protocol (remote.c) */

#define OVTA_REMOTE_VERSION 1
#define OVTA_REMOTE_HEADER 12               /* magic, type, length */
#define OVTA_REMOTE_MAX_JSON (64u << 10)    /* control messages (JSON) */
#define OVTA_REMOTE_MAX_NAME 255            /* a tensor or file name in a frame */
#define OVTA_REMOTE_MAX_TOKEN 256           /* the shared token's bytes */
#define OVTA_REMOTE_DEFAULT_MAX_DATA ((size_t)256 << 20) /* a file or tensor frame (default) */
#define OVTA_REMOTE_DEFAULT_MAX_SESSION ((uint64_t)1 << 30) /* a session's files + inputs (default) */
#define OVTA_REMOTE_DEFAULT_PORT 9091

/* The frame types (the 4 ASCII bytes on the wire; remote.c has what each carries). */
typedef enum ovta_remote_type {
  OVTA_RM_HELO = 0, /* client: version and token (JSON) */
  OVTA_RM_PLAN,     /* client: the plan's hash and files (JSON) */
  OVTA_RM_FILE,     /* client: one plan file (name + bytes) */
  OVTA_RM_LOAD,     /* client: load the plan on a backend (JSON) */
  OVTA_RM_INPT,     /* client: one input (tensor) */
  OVTA_RM_RUN,      /* client: run with the inputs given (JSON) */
  OVTA_RM_BYE,      /* client: end of session (empty) */
  OVTA_RM_OK,       /* server: done (JSON) */
  OVTA_RM_HAVE,     /* server: whether it has the plan (JSON) */
  OVTA_RM_OUTP,     /* server: one output (tensor) */
  OVTA_RM_STAT,     /* server: per-step counters of the run (JSON) */
  OVTA_RM_ERR,      /* server: an error (JSON {"error": text}) */
  OVTA_RM_TRCE,     /* client: close the device, send its trace (empty) */
  OVTA_RM_NTYPES
} ovta_remote_type;

/* The 4 wire bytes of type t ("HELO", ...). */
const char *ovta_remote_type_tag(ovta_remote_type t);

/* One frame parsed from a buffer: a view into it. */
typedef struct ovta_remote_frame {
  ovta_remote_type type; /* the type */
  const uint8_t *data;   /* the payload (inside the buffer parsed) */
  size_t len;            /* its bytes */
} ovta_remote_frame;

/* The largest payload of a frame of type t when data frames (FILE, INPT, OUTP, and STAT: the
 * counters of a plan of any size) may hold max_data bytes: other control frames
 * OVTA_REMOTE_MAX_JSON, BYE 0. */
size_t ovta_remote_max_payload(ovta_remote_type t, size_t max_data);
/* Parse one frame at the start of buf (n bytes): 0 and *f, *used (bytes of the frame) when it
 * is complete; OVTA_REMOTE_MORE when n is too short (header and length checked so far); else an
 * error (bad magic, unknown type, payload over its limit). */
#define OVTA_REMOTE_MORE 1
int ovta_remote_parse(const uint8_t *buf, size_t n, size_t max_data, ovta_remote_frame *f, size_t *used,
                      ovta_error *err);

/* A tensor payload (INPT, OUTP) into name (cap bytes) and a view *a of its data (not copied:
 * a->data points into the payload; do not clear it). Checked: name, dtype, rank, dims, size. */
int ovta_remote_tensor_decode(const ovta_remote_frame *f, char *name, size_t cap, ovta_array *a, ovta_error *err);
/* A FILE payload into its name (a safe file name, ovta_remote_name_ok) and a view of its bytes. */
int ovta_remote_file_decode(const ovta_remote_frame *f, char *name, size_t cap, const uint8_t **data, size_t *n,
                            ovta_error *err);
/* A control payload as a JSON object (*out: free with cJSON_Delete). */
int ovta_remote_json_decode(const ovta_remote_frame *f, cJSON **out, ovta_error *err);
/* A PLAN request: its hash (16 lowercase hex digits) and the byte counts of the files to send
 * (ovta_remote_plan_files order; -1: not part of the plan). */
#define OVTA_REMOTE_PLAN_FILES 3
extern const char *const ovta_remote_plan_files[OVTA_REMOTE_PLAN_FILES]; /* plan.json, params.bin, kernels.so */
int ovta_remote_plan_decode(const cJSON *j, char hash[17], int64_t bytes[OVTA_REMOTE_PLAN_FILES], ovta_error *err);

/* name is a plain file name: 1..64 of [A-Za-z0-9._-], not starting with '.' (no '/', no "..",
 * not absolute). */
bool ovta_remote_name_ok(const char *name);

/* Send a frame: the header, then n1 bytes of p1 and n2 of p2 (either may be empty). */
int ovta_remote_send(int fd, ovta_remote_type t, const void *p1, size_t n1, const void *p2, size_t n2,
                     ovta_error *err);
/* Send a JSON object (not freed). */
int ovta_remote_send_json(int fd, ovta_remote_type t, const cJSON *j, ovta_error *err);
/* Send a tensor frame (INPT, OUTP): name, dtype, rank, dims, data. */
int ovta_remote_send_tensor(int fd, ovta_remote_type t, const char *name, const ovta_array *a, ovta_error *err);
/* Receive one frame (header checked by ovta_remote_parse before the payload is read) into *f;
 * *buf holds it (free it). Timeouts are the socket's (SO_RCVTIMEO). */
int ovta_remote_recv(int fd, size_t max_data, ovta_remote_frame *f, uint8_t **buf, ovta_error *err);

/* The shared token: the first line of path, 1..OVTA_REMOTE_MAX_TOKEN bytes; refused when the
 * file is readable or writable by group or others, or is not a regular file. */
int ovta_remote_read_token(const char *path, char *tok, size_t cap, ovta_error *err);
/* "HOST:PORT" (or "PORT": 127.0.0.1) into host and port. */
int ovta_remote_split_addr(const char *addr, char *host, size_t cap, char *port, size_t pcap, ovta_error *err);
/* A plan's hash: FNV-1a 64 of its plan.json (which records the digest of every other file and
 * its own), as 16 hex digits. */
void ovta_remote_plan_hash(const void *plan_json, size_t n, char hash[17]);

/* Per-step counters of a run as JSON (an array, one object per step: runs and the device
 * counters of the last execution), and back into a plan read from the same folder. */
cJSON *ovta_remote_stats_json(const ovta_plan *p);
int ovta_remote_stats_apply(ovta_plan *p, const cJSON *arr, ovta_error *err);

/* ---------------------------------------------------------------- 2. Server (serve.c) */

/* The options of `ovta-rt serve`. */
typedef struct ovta_serve_opts {
  const char *listen;     /* ADDR:PORT (default 127.0.0.1:OVTA_REMOTE_DEFAULT_PORT) */
  const char *token_file; /* the shared token (required) */
  const char *work_dir;   /* plans/ (cached by hash) and sessions/ go here (required) */
  const char *backend;    /* a backend the client may not override, or NULL (client's choice) */
  int threads;            /* CPU kernel threads (0: every core) */
  double timeout_s;       /* per receive/send (default 30) */
  int session_s;          /* a whole session at most (default 600) */
  size_t max_data;        /* a FILE or INPT frame at most (default OVTA_REMOTE_DEFAULT_MAX_DATA) */
  uint64_t max_session;   /* bytes a session may hold at once: the plan's files sent plus the
                             inputs kept (0: OVTA_REMOTE_DEFAULT_MAX_SESSION) */
  int max_sessions;       /* stop after this many (0: serve forever; tests) */
  bool in_process;        /* serve sessions in this process, not a child each (emulators whose
                             fork hangs: bookworm's qemu-user); a crash then ends the server, and
                             the session limit is checked between frames only */
  FILE *log;              /* one line per session event (stderr) */
} ovta_serve_opts;

/* Listen and serve sessions one at a time (the device is used by one client; others wait in
 * the listen queue); each session runs in a child process with a deadline, so a crash, a hang
 * or a dropped client ends only it (in_process: see above). Returns on a setup error (or after
 * max_sessions). */
int ovta_remote_serve(const ovta_serve_opts *o, ovta_error *err);

/* ---------------------------------------------------------------- 3. Client (client.c) */

typedef struct ovta_remote ovta_remote;

/* Connect to ADDR ("HOST:PORT"), say hello with the token of token_file; timeout_s per
 * receive (the run included). */
int ovta_remote_connect(const char *addr, const char *token_file, double timeout_s, ovta_remote **out,
                        ovta_error *err);
/* Offer the plan folder dir (its hash); send its files unless the server has them
 * (*uploaded tells); then load it on backend (NULL: the server's default, fsim for an
 * accelerator plan) with threads (0: the server's); trace: the device records a Chrome trace
 * (tsim), fetched by ovta_remote_trace. */
int ovta_remote_open_plan(ovta_remote *r, const char *dir, const char *backend, int threads, bool trace,
                          bool *uploaded, ovta_error *err);
/* What one remote run brought back. */
typedef struct ovta_remote_result {
  int nout;            /* outputs */
  char **names;        /* their names */
  ovta_array *outs;    /* their values (owned) */
  cJSON *stats;        /* per-step counters (ovta_remote_stats_json), or NULL */
} ovta_remote_result;
void ovta_remote_result_clear(ovta_remote_result *res);
/* Send the n inputs, run, receive outputs and counters into *res (cleared first). */
int ovta_remote_run(ovta_remote *r, int n, const char *const *names, const ovta_array *vals, ovta_remote_result *res,
                    ovta_error *err);
/* After the runs: the server closes the device (the plan is unloaded: no more runs) and sends
 * the trace it recorded, written to path (the device's raw trace, as ovta_dev_opts
 * .chrome_trace_path gets it locally). */
int ovta_remote_trace(ovta_remote *r, const char *path, ovta_error *err);
/* Say goodbye and close (r may be NULL). */
void ovta_remote_close(ovta_remote *r);

#endif
