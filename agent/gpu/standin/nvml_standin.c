/*
 * A stand-in for libnvidia-ml.so.1: the NVML entry points gpu-npd calls (through nvidia-ml-py, unmodified),
 * answering from a scenario instead of a GPU.  Built by agent/gpu/standin.py with the machine's C compiler;
 * the scenario arrives as a flat text file (one fact a line, written by standin.py from YAML):
 *
 *   driver 550.54.15                  nvmlSystemGetDriverVersion
 *   init_error 9                      nvmlInit* returns this NVML error code
 *   missing nvmlDeviceGetGpuFabricInfoV   an entry point this driver generation lacks (FUNCTION_NOT_FOUND)
 *   gpu 0 uuid GPU-...                identity strings: uuid, pci, name, vbios
 *   at 0 0 ecc_uncorrected_volatile 0 a value of GPU 0 from t=0 s on; a value is a number, E<code> (the call
 *                                     fails with that NVML error) or H (the call blocks until released or the
 *                                     next scenario is loaded, then fails with GPU_IS_LOST); the key `xid`
 *                                     queues an Xid event instead,
 *                                     `lost` 1 makes every call on the GPU fail with GPU_IS_LOST (its handle
 *                                     too: at 0, a GPU lost before the client starts); `handle` E<code> or H
 *                                     fails or blocks only the handle calls (by index and by PCI bus id)
 *   at 20 -1 driver_gone 1            the driver goes away under the running client (unloaded for an upgrade,
 *                                     `nvidia-smi -r`, a driver container restarted): every call of a session
 *                                     opened before answers this NVML error code from then on, and nvmlInit
 *                                     answers DRIVER_NOT_LOADED
 *   at 80 -1 driver_back 1            the driver is back: nvmlInit succeeds again and its session sees this many
 *                                     of the scenario's GPUs (-1: all); the session from before stays dead
 *
 * `at` lines come sorted by time.  Time is seconds since the scenario was loaded, or what the test set with
 * standin_set_time() (a fake clock).  A key a scenario does not give is NOT_SUPPORTED, as NVML answers for a
 * feature the GPU lacks.  This is test equipment: it knows nothing of real GPUs beyond what scenarios say.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
enum {
    OK = 0, E_UNINIT = 1, E_ARG = 2, E_NOTSUP = 3, E_SIZE = 7, E_TIMEOUT = 10, E_NOFUNC = 13,
    E_LOST = 15, E_VERSION = 25, E_UNKNOWN = 999
};

#define MAX_GPUS 64
#define MAX_KEYS 320
#define MAX_EVENTS 4096
#define MAX_MISSING 32
#define XID_EVENT 0x8ULL

typedef struct { char key[40]; double v; int err; int hang; } Value;

typedef struct Gpu {
    unsigned index;
    char uuid[96], pci[32], name[96], vbios[32];
    Value values[MAX_KEYS];
    int nvalues;
    unsigned long long events;  /* registered event mask */
} Gpu;

typedef struct { double at; int gpu; char key[40]; char val[32]; } Step;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static Gpu gpus[MAX_GPUS];
static int ngpus, refcount, init_error, released, loaded;
/* the driver gone under a running client: gone_error is what a call of a session opened before answers (0: the
   driver is there); visible, the GPUs the session after it sees (-1: all) */
static int gone_error, visible = -1;
static int nvisible(void) { return visible >= 0 && visible < ngpus ? visible : ngpus; }  /* with mu held */
/* each scenario loaded is a new driver: a wait begun under an earlier one (a thread the last test left waiting)
   returns UNINITIALIZED and never takes this scenario's events */
static unsigned long generation;
static char driver[32] = "550.54.15";
static char missing[MAX_MISSING][64];
static int nmissing;
static Step *steps;
static int nsteps, next_step;
static double t0, ext_time;
static int ext_set;
static int xq_gpu[MAX_EVENTS];
static unsigned long long xq_xid[MAX_EVENTS];
static int xq_head, xq_tail;
static long calls;

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void) { return ext_set ? ext_time : mono() - t0; }

static Value *find(Gpu *g, const char *key) {
    for (int i = 0; i < g->nvalues; i++)
        if (strcmp(g->values[i].key, key) == 0) return &g->values[i];
    return NULL;
}

static void set_value(Gpu *g, const char *key, const char *val) {
    Value *v = find(g, key);
    if (!v) {
        if (g->nvalues >= MAX_KEYS) return;
        v = &g->values[g->nvalues++];
        snprintf(v->key, sizeof v->key, "%s", key);
    }
    v->err = 0; v->hang = 0; v->v = 0;
    if (val[0] == 'E') v->err = atoi(val + 1);
    else if (val[0] == 'H') v->hang = 1;
    else v->v = strtod(val, NULL);
}

static void advance(void) {  /* apply every step due by now; called with mu held */
    double t = now();
    while (next_step < nsteps && steps[next_step].at <= t) {
        Step *s = &steps[next_step++];
        if (s->gpu == -1 && strcmp(s->key, "init_error") == 0) { /* the driver loads (0) or goes away */
            init_error = atoi(s->val);
            continue;
        }
        if (s->gpu == -1 && strcmp(s->key, "driver_gone") == 0) { /* every open session dies with it */
            gone_error = atoi(s->val);
            init_error = 9; /* DRIVER_NOT_LOADED until it is back */
            refcount = 0;
            generation++; /* an Xid wait in progress ends (UNINITIALIZED) */
            pthread_cond_broadcast(&cv);
            continue;
        }
        if (s->gpu == -1 && strcmp(s->key, "driver_back") == 0) {
            init_error = 0;
            visible = atoi(s->val);
            continue;
        }
        if (s->gpu < 0 || s->gpu >= ngpus) continue;
        if (strcmp(s->key, "xid") == 0) {
            int next = (xq_tail + 1) % MAX_EVENTS;
            if (next != xq_head) {
                xq_gpu[xq_tail] = s->gpu;
                xq_xid[xq_tail] = strtoull(s->val, NULL, 10);
                xq_tail = next;
            }
            pthread_cond_broadcast(&cv);
        } else {
            set_value(&gpus[s->gpu], s->key, s->val);
        }
    }
}

/* ---- scenario control (used by standin.py and tests; not NVML) ------------------------------------- */

int standin_load(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return errno ? errno : -1;
    pthread_mutex_lock(&mu);
    memset(gpus, 0, sizeof gpus);
    ngpus = 0; init_error = 0; gone_error = 0; visible = -1; released = 0; refcount = 0; nmissing = 0; next_step = 0; nsteps = 0;
    xq_head = xq_tail = 0; ext_set = 0; t0 = mono(); calls = 0;
    snprintf(driver, sizeof driver, "550.54.15");
    free(steps); steps = NULL;
    int cap = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char word[32] = "";
        int used = 0;
        if (sscanf(line, "%31s %n", word, &used) < 1) continue;
        const char *rest = line + used;
        if (strcmp(word, "driver") == 0) snprintf(driver, sizeof driver, "%s", rest);
        else if (strcmp(word, "init_error") == 0) init_error = atoi(rest);
        else if (strcmp(word, "missing") == 0 && nmissing < MAX_MISSING)
            snprintf(missing[nmissing++], sizeof missing[0], "%s", rest);
        else if (strcmp(word, "gpu") == 0) {
            int i, n = 0; char what[16];
            if (sscanf(rest, "%d %15s %n", &i, what, &n) < 2 || i < 0 || i >= MAX_GPUS) continue;
            if (i >= ngpus) ngpus = i + 1;
            Gpu *g = &gpus[i];
            g->index = (unsigned)i;
            const char *s = rest + n;
            if (strcmp(what, "uuid") == 0) snprintf(g->uuid, sizeof g->uuid, "%s", s);
            else if (strcmp(what, "pci") == 0) snprintf(g->pci, sizeof g->pci, "%s", s);
            else if (strcmp(what, "name") == 0) snprintf(g->name, sizeof g->name, "%s", s);
            else if (strcmp(what, "vbios") == 0) snprintf(g->vbios, sizeof g->vbios, "%s", s);
        } else if (strcmp(word, "at") == 0) {
            Step s;
            if (sscanf(rest, "%lf %d %39s %31s", &s.at, &s.gpu, s.key, s.val) < 4) continue;
            if (nsteps == cap) {
                cap = cap ? cap * 2 : 256;
                steps = realloc(steps, (size_t)cap * sizeof *steps);
            }
            steps[nsteps++] = s;
        }
    }
    fclose(f);
    loaded = 1;
    generation++;
    pthread_cond_broadcast(&cv);
    advance();
    pthread_mutex_unlock(&mu);
    return 0;
}

void standin_set_time(double t) {
    pthread_mutex_lock(&mu);
    ext_time = t;
    ext_set = 1;
    advance();
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

void standin_release(void) {  /* every hung call returns (GPU_IS_LOST) */
    pthread_mutex_lock(&mu);
    released = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

long standin_calls(void) { return calls; }
int standin_refcount(void) { return refcount; }

/* ---- helpers every entry point goes through ------------------------------------------------------- */

static int lacks(const char *fn) {
    for (int i = 0; i < nmissing; i++)
        if (strcmp(missing[i], fn) == 0) return 1;
    return 0;
}

/* Entry: lock, count, check init and the function's presence; for device calls also the GPU's state. */
#define ENTER(fn) \
    pthread_mutex_lock(&mu); calls++; \
    if (lacks(fn)) { pthread_mutex_unlock(&mu); return E_NOFUNC; } \
    advance(); \
    if (refcount <= 0) { nvmlReturn_t u_ = gone_error ? gone_error : E_UNINIT; pthread_mutex_unlock(&mu); return u_; }
#define LEAVE(rc) do { nvmlReturn_t r_ = (rc); pthread_mutex_unlock(&mu); return r_; } while (0)

static nvmlReturn_t device_ok(Gpu *g) {
    if (g < gpus || g >= gpus + ngpus) return E_ARG;
    Value *lost = find(g, "lost");
    if (lost && (lost->v != 0 || lost->err)) return E_LOST;
    return OK;
}
#define ENTER_DEV(fn, dev) \
    ENTER(fn); { nvmlReturn_t rc_ = device_ok(dev); if (rc_) LEAVE(rc_); }

/* A value read: NOT_SUPPORTED when absent, its error when it has one, blocks while it hangs. */
static nvmlReturn_t get(Gpu *g, const char *key, double *out) {
    Value *v = find(g, key);
    if (!v) return E_NOTSUP;
    if (v->hang) {  /* until released, or until the next scenario replaces this one (as an Xid wait) */
        unsigned long began = generation;
        while (!released && generation == began) pthread_cond_wait(&cv, &mu);
        return E_LOST;
    }
    if (v->err) return v->err;
    *out = v->v;
    return OK;
}
#define GET(g, key, dst) do { double d_; nvmlReturn_t rc_ = get(g, key, &d_); if (rc_) LEAVE(rc_); dst = d_; } while (0)

static void copy_str(char *dst, unsigned len, const char *src) {
    if (len == 0) return;
    snprintf(dst, len, "%s", src);
}
static nvmlReturn_t str_out(char *dst, unsigned len, const char *src) {
    if (!dst) return E_ARG;
    if (strlen(src) + 1 > len) return E_SIZE;
    copy_str(dst, len, src);
    return OK;
}

/* ---- init / system ------------------------------------------------------------------------------- */

static nvmlReturn_t do_init(void) {
    pthread_mutex_lock(&mu);
    calls++;
    if (!loaded) {
        const char *path = getenv("NVML_STANDIN_SCENARIO");
        pthread_mutex_unlock(&mu);
        if (!path || standin_load(path) != 0) return 9; /* DRIVER_NOT_LOADED: nothing to stand in for */
        pthread_mutex_lock(&mu);
    }
    advance();
    if (init_error) LEAVE(init_error);
    gone_error = 0; /* a new session: the calls of this one answer */
    refcount++;
    LEAVE(OK);
}
nvmlReturn_t nvmlInit(void) { return do_init(); }
nvmlReturn_t nvmlInit_v2(void) { return do_init(); }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; return do_init(); }

nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&mu);
    calls++;
    if (refcount <= 0) LEAVE(E_UNINIT);
    refcount--;
    LEAVE(OK);
}

const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case OK: return "Success";
    case E_UNINIT: return "Uninitialized";
    case E_ARG: return "Invalid Argument";
    case E_NOTSUP: return "Not Supported";
    case E_SIZE: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case E_TIMEOUT: return "Timeout";
    case E_NOFUNC: return "Function Not Found";
    case E_LOST: return "GPU is lost";
    case E_VERSION: return "Argument Version Mismatch";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    ENTER("nvmlSystemGetDriverVersion");
    LEAVE(str_out(version, length, driver));
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    ENTER("nvmlSystemGetNVMLVersion");
    char v[40];
    snprintf(v, sizeof v, "12.%s", driver);
    LEAVE(str_out(version, length, v));
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    ENTER("nvmlDeviceGetCount_v2");
    if (!count) LEAVE(E_ARG);
    *count = (unsigned)nvisible();
    LEAVE(OK);
}
nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { return nvmlDeviceGetCount_v2(count); }

/* A handle: GPU_IS_LOST for a lost GPU (`lost`), else the scenario's `handle` key when it has one (an error, or
   `hang`: the handle call blocks as NVML does on a GPU that stopped answering). */
static nvmlReturn_t handle_of(Gpu *g) {
    nvmlReturn_t rc = device_ok(g);
    double d;
    if (rc == OK && find(g, "handle")) rc = get(g, "handle", &d);
    return rc;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, Gpu **device) {
    ENTER("nvmlDeviceGetHandleByIndex_v2");
    if (!device || index >= (unsigned)nvisible()) LEAVE(E_ARG);
    *device = &gpus[index];
    LEAVE(handle_of(&gpus[index]));
}

/* domain:bus:device.function in hex, as NVML takes it (busId of nvmlPciInfo_t or sysfs's 0000:18:00.0) */
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *busId, Gpu **device) {
    ENTER("nvmlDeviceGetHandleByPciBusId_v2");
    unsigned dom, bus, d, fn;
    if (!busId || !device || sscanf(busId, "%x:%x:%x.%x", &dom, &bus, &d, &fn) != 4) LEAVE(E_ARG);
    int n = nvisible();
    for (int i = 0; i < n; i++) {
        unsigned gdom = 0, gbus = 0, gd = 0, gfn = 0;
        if (sscanf(gpus[i].pci, "%x:%x:%x.%x", &gdom, &gbus, &gd, &gfn) == 4 && gdom == dom && gbus == bus && gd == d
            && gfn == fn) {
            *device = &gpus[i];
            LEAVE(handle_of(&gpus[i]));
        }
    }
    LEAVE(6); /* NOT_FOUND */
}
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, Gpu **device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

/* ---- identity ------------------------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetIndex(Gpu *dev, unsigned int *index) {
    ENTER_DEV("nvmlDeviceGetIndex", dev);
    *index = dev->index;
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetUUID(Gpu *dev, char *uuid, unsigned int length) {
    ENTER_DEV("nvmlDeviceGetUUID", dev);
    LEAVE(str_out(uuid, length, dev->uuid));
}

nvmlReturn_t nvmlDeviceGetName(Gpu *dev, char *name, unsigned int length) {
    ENTER_DEV("nvmlDeviceGetName", dev);
    LEAVE(str_out(name, length, dev->name));
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(Gpu *dev, char *version, unsigned int length) {
    ENTER_DEV("nvmlDeviceGetVbiosVersion", dev);
    if (!dev->vbios[0]) LEAVE(E_NOTSUP);
    LEAVE(str_out(version, length, dev->vbios));
}

typedef struct {  /* nvmlPciInfo_t (v3 layout) */
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} PciInfo;

nvmlReturn_t nvmlDeviceGetPciInfo_v3(Gpu *dev, PciInfo *pci) {
    ENTER_DEV("nvmlDeviceGetPciInfo_v3", dev);
    if (!pci) LEAVE(E_ARG);
    memset(pci, 0, sizeof *pci);
    unsigned dom = 0, bus = 0, d = 0, fn = 0;
    sscanf(dev->pci, "%x:%x:%x.%x", &dom, &bus, &d, &fn);
    pci->domain = dom; pci->bus = bus; pci->device = d;
    double id;
    if (get(dev, "pci_device_id", &id) == OK) pci->pciDeviceId = (unsigned)id;
    copy_str(pci->busId, sizeof pci->busId, dev->pci);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.%X", dom & 0xffff, bus, d, fn);
    LEAVE(OK);
}
nvmlReturn_t nvmlDeviceGetPciInfo_v2(Gpu *dev, PciInfo *pci) { return nvmlDeviceGetPciInfo_v3(dev, pci); }
nvmlReturn_t nvmlDeviceGetPciInfo(Gpu *dev, PciInfo *pci) { return nvmlDeviceGetPciInfo_v3(dev, pci); }

/* ---- memory errors --------------------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetTotalEccErrors(Gpu *dev, int errorType, int counterType, unsigned long long *count) {
    ENTER_DEV("nvmlDeviceGetTotalEccErrors", dev);
    if (!count || errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1) LEAVE(E_ARG);
    static const char *keys[2][2] = {{"ecc_corrected_volatile", "ecc_corrected_aggregate"},
                                     {"ecc_uncorrected_volatile", "ecc_uncorrected_aggregate"}};
    GET(dev, keys[errorType][counterType], *count);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(Gpu *dev, int cause, unsigned int *pageCount, unsigned long long *addresses) {
    ENTER_DEV("nvmlDeviceGetRetiredPages", dev);
    if (!pageCount || cause < 0 || cause > 1) LEAVE(E_ARG);
    unsigned n;
    GET(dev, cause == 0 ? "retired_pages_sbe" : "retired_pages_dbe", n);
    if (!addresses || *pageCount < n) {
        unsigned asked = *pageCount;
        *pageCount = n;
        LEAVE(n == 0 || (addresses && asked >= n) ? OK : E_SIZE);
    }
    for (unsigned i = 0; i < n; i++) addresses[i] = 0x1000ULL * (i + 1) + (unsigned long long)cause;
    *pageCount = n;
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(Gpu *dev, int *isPending) {
    ENTER_DEV("nvmlDeviceGetRetiredPagesPendingStatus", dev);
    GET(dev, "retired_pages_pending", *isPending);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(Gpu *dev, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failure) {
    ENTER_DEV("nvmlDeviceGetRemappedRows", dev);
    if (!corr || !unc || !pending || !failure) LEAVE(E_ARG);
    GET(dev, "remap_correctable", *corr);
    GET(dev, "remap_uncorrectable", *unc);
    GET(dev, "remap_pending", *pending);
    GET(dev, "remap_failure", *failure);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetEccMode(Gpu *dev, int *current, int *pending) {
    ENTER_DEV("nvmlDeviceGetEccMode", dev);
    GET(dev, "ecc_mode_current", *current);
    GET(dev, "ecc_mode_pending", *pending);
    LEAVE(OK);
}

/* ---- thermal, power, clocks ----------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetTemperature(Gpu *dev, int sensor, unsigned int *temp) {
    ENTER_DEV("nvmlDeviceGetTemperature", dev);
    if (sensor != 0 || !temp) LEAVE(E_ARG);
    GET(dev, "temperature_gpu", *temp);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetTemperatureThreshold(Gpu *dev, int type, unsigned int *temp) {
    ENTER_DEV("nvmlDeviceGetTemperatureThreshold", dev);
    static const char *keys[] = {"temperature_shutdown", "temperature_slowdown", "temperature_memory_max",
                                 "temperature_gpu_max"};
    if (!temp || type < 0 || type > 3) LEAVE(type > 3 ? E_NOTSUP : E_ARG);
    GET(dev, keys[type], *temp);
    LEAVE(OK);
}

typedef struct { unsigned int version; int marginTemperature; } MarginTemp;
nvmlReturn_t nvmlDeviceGetMarginTemperature(Gpu *dev, MarginTemp *margin) {
    ENTER_DEV("nvmlDeviceGetMarginTemperature", dev);
    if (!margin) LEAVE(E_ARG);
    if (margin->version != 0x1000008) LEAVE(E_VERSION);
    GET(dev, "temperature_margin", margin->marginTemperature);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(Gpu *dev, unsigned long long *reasons) {
    ENTER_DEV("nvmlDeviceGetCurrentClocksEventReasons", dev);
    GET(dev, "clocks_event_mask", *reasons);
    LEAVE(OK);
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(Gpu *dev, unsigned long long *reasons) {
    ENTER_DEV("nvmlDeviceGetCurrentClocksThrottleReasons", dev);
    GET(dev, "clocks_event_mask", *reasons);
    LEAVE(OK);
}

typedef struct { unsigned long long referenceTime, violationTime; } ViolationTime;
nvmlReturn_t nvmlDeviceGetViolationStatus(Gpu *dev, int policy, ViolationTime *t) {
    ENTER_DEV("nvmlDeviceGetViolationStatus", dev);
    static const char *keys[] = {"violation_power_ns", "violation_thermal_ns", "violation_sync_boost_ns",
                                 "violation_board_limit_ns", "violation_low_utilization_ns",
                                 "violation_reliability_ns"};
    if (!t || policy < 0) LEAVE(E_ARG);
    if (policy > 5) LEAVE(E_NOTSUP);
    GET(dev, keys[policy], t->violationTime);
    t->referenceTime = (unsigned long long)(now() * 1e6);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(Gpu *dev, int type, unsigned int *clock) {
    ENTER_DEV("nvmlDeviceGetMaxClockInfo", dev);
    if (!clock) LEAVE(E_ARG);
    if (type == 1) GET(dev, "clock_sm_max", *clock);
    else if (type == 2) GET(dev, "clock_mem_max", *clock);
    else LEAVE(E_NOTSUP);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetClockInfo(Gpu *dev, int type, unsigned int *clock) {
    ENTER_DEV("nvmlDeviceGetClockInfo", dev);
    static const char *keys[] = {"clock_graphics", "clock_sm", "clock_mem", "clock_video"};
    if (!clock || type < 0) LEAVE(E_ARG);
    if (type > 3) LEAVE(E_NOTSUP);
    GET(dev, keys[type], *clock);
    LEAVE(OK);
}

typedef struct { unsigned int gpu, memory; } Utilization;  /* nvmlUtilization_t: percent over the last sample period */
nvmlReturn_t nvmlDeviceGetUtilizationRates(Gpu *dev, Utilization *u) {
    ENTER_DEV("nvmlDeviceGetUtilizationRates", dev);
    if (!u) LEAVE(E_ARG);
    GET(dev, "utilization_gpu", u->gpu);
    GET(dev, "utilization_memory", u->memory);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(Gpu *dev, int *mode) {
    ENTER_DEV("nvmlDeviceGetPersistenceMode", dev);
    GET(dev, "persistence_mode", *mode);
    LEAVE(OK);
}

/* ---- PCIe ----------------------------------------------------------------------------------------- */

#define UINT_GETTER(fn, key) \
    nvmlReturn_t fn(Gpu *dev, unsigned int *out) { \
        ENTER_DEV(#fn, dev); \
        if (!out) LEAVE(E_ARG); \
        GET(dev, key, *out); \
        LEAVE(OK); \
    }
/* the one-call readings of agent/gpu/interface.py (NVML_READINGS: power, PCIe, ...) get their getters from
   agent/gpu/standin.py at build time, appended to this file; the GPU's own maximum PCIe generation (nvidia-smi's
   "Device Max"), which the agent does not judge by: */
UINT_GETTER(nvmlDeviceGetGpuMaxPcieLinkGeneration, "pcie_link_gen_device_max")
/* who may hold a context on the GPU (nvmlComputeMode_t: 0 Default, 2 Prohibited, 3 Exclusive_Process) */
UINT_GETTER(nvmlDeviceGetComputeMode, "compute_mode")

/* ---- field values --------------------------------------------------------------------------------- */

typedef struct {
    unsigned int fieldId, scopeId;
    long long timestamp, latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    union { double dVal; unsigned int uiVal; unsigned long ulVal; unsigned long long ullVal; long long sllVal;
            int siVal; unsigned short usVal; } value;
} FieldValue;

nvmlReturn_t nvmlDeviceGetFieldValues(Gpu *dev, int count, FieldValue *values) {
    ENTER_DEV("nvmlDeviceGetFieldValues", dev);
    if (!values || count < 0) LEAVE(E_ARG);
    for (int i = 0; i < count; i++) {
        FieldValue *fv = &values[i];
        char key[40];
        snprintf(key, sizeof key, "field_%u", fv->fieldId);
        if (fv->fieldId == 82) snprintf(key, sizeof key, "temperature_memory");
        if (fv->fieldId == 230) snprintf(key, sizeof key, "recovery_action");
        int counter = 0; /* NVLink data counters (KiB since driver load): unsigned long long, summed over links */
        if (fv->fieldId == 138 || fv->fieldId == 139) {
            if (fv->scopeId != 0xFFFFFFFFu) { fv->nvmlReturn = E_NOTSUP; continue; } /* per link: not served */
            snprintf(key, sizeof key, fv->fieldId == 138 ? "nvlink_tx_kib" : "nvlink_rx_kib");
            counter = 1;
        }
        double d = 0;
        fv->nvmlReturn = get(dev, key, &d);
        fv->timestamp = (long long)(now() * 1e6);
        fv->latencyUsec = 0;
        fv->valueType = counter ? 3 : 1; /* unsigned long long : unsigned int */
        fv->value.ullVal = 0;
        if (counter) fv->value.ullVal = (unsigned long long)d;
        else fv->value.uiVal = (unsigned)d;
    }
    LEAVE(OK);
}

/* ---- processes ------------------------------------------------------------------------------------ */

typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gpuInstanceId, computeInstanceId; } ProcessInfo;

static nvmlReturn_t processes(const char *fn, Gpu *dev, unsigned int *infoCount, ProcessInfo *infos) {
    ENTER_DEV(fn, dev);
    if (!infoCount) LEAVE(E_ARG);
    unsigned n, first; /* the GPU's processes are pids first, first + 1, ... */
    GET(dev, "compute_processes", n);
    GET(dev, "compute_pid_first", first);
    if (n == 0) { *infoCount = 0; LEAVE(OK); }
    if (!infos || *infoCount < n) { *infoCount = n; LEAVE(E_SIZE); }
    for (unsigned i = 0; i < n; i++) {
        infos[i].pid = first + i;
        infos[i].usedGpuMemory = 1ULL << 30;
        infos[i].gpuInstanceId = infos[i].computeInstanceId = 0xFFFFFFFFu;
    }
    *infoCount = n;
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(Gpu *dev, unsigned int *infoCount, ProcessInfo *infos) {
    return processes("nvmlDeviceGetComputeRunningProcesses_v3", dev, infoCount, infos);
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(Gpu *dev, unsigned int *infoCount, ProcessInfo *infos) {
    return processes("nvmlDeviceGetComputeRunningProcesses_v2", dev, infoCount, infos); /* v2: same layout */
}

/* ---- NVLink --------------------------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetNvLinkState(Gpu *dev, unsigned int link, int *isActive) {
    ENTER_DEV("nvmlDeviceGetNvLinkState", dev);
    if (!isActive) LEAVE(E_ARG);
    char key[40];
    snprintf(key, sizeof key, "nvlink.%u.state", link);
    if (!find(dev, key)) LEAVE(link >= 18 ? E_ARG : E_NOTSUP);
    GET(dev, key, *isActive);
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(Gpu *dev, unsigned int link, int counter, unsigned long long *value) {
    ENTER_DEV("nvmlDeviceGetNvLinkErrorCounter", dev);
    static const char *names[] = {"replay", "recovery", "crc_flit", "crc_data", "ecc_data"};
    if (!value || counter < 0 || counter > 4) LEAVE(E_ARG);
    char key[40];
    snprintf(key, sizeof key, "nvlink.%u.state", link);
    if (!find(dev, key)) LEAVE(link >= 18 ? E_ARG : E_NOTSUP);
    snprintf(key, sizeof key, "nvlink.%u.%s", link, names[counter]);
    GET(dev, key, *value);
    LEAVE(OK);
}

/* ---- NVLink fabric (NVL72-class systems) ---------------------------------------------------------- */

typedef struct {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
    unsigned int healthMask;
    unsigned char healthSummary; /* v3 only */
} FabricInfo;

nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(Gpu *dev, FabricInfo *info) {
    ENTER_DEV("nvmlDeviceGetGpuFabricInfoV", dev);
    if (!info) LEAVE(E_ARG);
    int v3 = info->version == 0x3000028;
    double d;
    if (!v3 && info->version != 0x2000024) LEAVE(E_VERSION);
    if (v3 && get(dev, "fabric_info_max_version", &d) == OK && d < 3) LEAVE(E_VERSION); /* a 550-era driver */
    GET(dev, "fabric_state", d);
    unsigned int version = info->version;
    memset(info, 0, v3 ? sizeof *info : offsetof(FabricInfo, healthSummary)); /* padding too: the state byte is
                                                                                 read as a uint by some bindings */
    info->version = version;
    info->state = (unsigned char)d;
    if (get(dev, "fabric_status", &d) == OK) info->status = (nvmlReturn_t)d;
    if (get(dev, "fabric_clique_id", &d) == OK) info->cliqueId = (unsigned)d;
    if (get(dev, "fabric_health_mask", &d) == OK) info->healthMask = (unsigned)d;
    if (v3) info->healthSummary = get(dev, "fabric_health_summary", &d) == OK ? (unsigned char)d : 0;
    LEAVE(OK);
}

/* ---- events --------------------------------------------------------------------------------------- */

typedef struct { int dummy; } EventSet;
static EventSet the_set;

typedef struct {
    Gpu *device;
    unsigned long long eventType, eventData;
    unsigned int gpuInstanceId, computeInstanceId;
} EventData;

nvmlReturn_t nvmlEventSetCreate(EventSet **set) {
    ENTER("nvmlEventSetCreate");
    if (!set) LEAVE(E_ARG);
    *set = &the_set;
    LEAVE(OK);
}

nvmlReturn_t nvmlEventSetFree(EventSet *set) {
    ENTER("nvmlEventSetFree");
    (void)set;
    for (int i = 0; i < ngpus; i++) gpus[i].events = 0;
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(Gpu *dev, unsigned long long *types) {
    ENTER_DEV("nvmlDeviceGetSupportedEventTypes", dev);
    *types = XID_EVENT;
    LEAVE(OK);
}

nvmlReturn_t nvmlDeviceRegisterEvents(Gpu *dev, unsigned long long types, EventSet *set) {
    ENTER_DEV("nvmlDeviceRegisterEvents", dev);
    if (set != &the_set) LEAVE(E_ARG);
    if (types & ~XID_EVENT) LEAVE(E_NOTSUP);
    dev->events |= types;
    LEAVE(OK);
}

static nvmlReturn_t wait_event(EventSet *set, EventData *data, unsigned int timeoutms, int v2) {
    if (set != &the_set || !data) return E_ARG;
    double deadline = mono() + timeoutms / 1000.0;
    unsigned long began = generation;
    for (;;) {
        if (generation != began) return E_UNINIT;
        advance();
        while (xq_head != xq_tail) {
            int g = xq_gpu[xq_head];
            unsigned long long xid = xq_xid[xq_head];
            xq_head = (xq_head + 1) % MAX_EVENTS;
            if (!(gpus[g].events & XID_EVENT)) continue;
            data->device = &gpus[g];
            data->eventType = XID_EVENT;
            data->eventData = xid;
            if (v2) data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
            return OK;
        }
        double left = deadline - mono();
        if (left <= 0) return E_TIMEOUT;
        if (left > 0.01) left = 0.01; /* timeline steps fall due by the clock: look again soon */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long ns = ts.tv_nsec + (long)(left * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&cv, &mu, &ts);
        if (refcount <= 0) return E_UNINIT;
    }
}

nvmlReturn_t nvmlEventSetWait_v2(EventSet *set, EventData *data, unsigned int timeoutms) {
    ENTER("nvmlEventSetWait_v2");
    LEAVE(wait_event(set, data, timeoutms, 1));
}

nvmlReturn_t nvmlEventSetWait(EventSet *set, EventData *data, unsigned int timeoutms) {
    ENTER("nvmlEventSetWait");
    LEAVE(wait_event(set, data, timeoutms, 0)); /* v1's struct has no instance ids: they are left alone */
}
