/* transferperf.dll: a sample performance provider for ini-samples/transfer.ini.
 *
 * It reports the Transfer object (single instance: Bytes Sent, Available
 * Bytes, Bytes Sent/sec) and the Peer object (two instances, "alpha" and
 * "beta": Bytes Received/sec, Active Peers) with fixed values, so that a
 * consumer's output can be checked. The INI has no base counter, so none
 * is reported. Indices are First Counter/First Help of the service's
 * Performance key plus the offsets of ../CounterOffsets.h, read in Open.
 *
 * Exports OpenTransfer, CollectTransfer and CloseTransfer (transferperf.def).
 * Built with mingw-w64 by wine.mk; also, for regtool verify's tests, as
 * three broken providers, each with one mistake real providers make
 * (TRANSFERPERF_FAULT): 1, Transfer's length is not a multiple of 8;
 * 2, names are numbered from First Help (the wrong base); 3, a counter's
 * index lies past the provider's range. */
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>
#include <winperf.h>

#include "../CounterOffsets.h"

#define PERF_KEY L"SYSTEM\\CurrentControlSet\\Services\\TransferPerf\\Performance"

/* The values reported (the test checks them). */
#define V_BYTES_SENT      123456u
#define V_AVAILABLE_BYTES 4096u
#define V_SENT_PER_SEC    777u

#ifndef TRANSFERPERF_FAULT
#define TRANSFERPERF_FAULT 0
#endif

static DWORD first_counter, first_help;

/* The base of the name indices (fault 2: First Help, one too high). */
static DWORD name_base(void)
{
    return TRANSFERPERF_FAULT == 2 ? first_help : first_counter;
}
static LONG open_count;

DWORD WINAPI OpenTransfer(LPWSTR devices);
DWORD WINAPI CollectTransfer(LPWSTR query, LPVOID *data, LPDWORD bytes,
                             LPDWORD objects);
DWORD WINAPI CloseTransfer(void);

static DWORD read_dword(HKEY k, const WCHAR *name, DWORD *out)
{
    DWORD type = 0, size = sizeof *out;
    LONG r = RegQueryValueExW(k, name, NULL, &type, (BYTE *)out, &size);
    if (r != ERROR_SUCCESS)
        return (DWORD)r;
    return type == REG_DWORD && size == sizeof *out ? ERROR_SUCCESS
                                                    : ERROR_INVALID_DATA;
}

DWORD WINAPI OpenTransfer(LPWSTR devices)
{
    (void)devices;
    if (InterlockedIncrement(&open_count) > 1)
        return ERROR_SUCCESS;
    HKEY k;
    LONG r = RegOpenKeyExW(HKEY_LOCAL_MACHINE, PERF_KEY, 0, KEY_READ, &k);
    if (r == ERROR_SUCCESS) {
        r = (LONG)read_dword(k, L"First Counter", &first_counter);
        if (r == ERROR_SUCCESS)
            r = (LONG)read_dword(k, L"First Help", &first_help);
        RegCloseKey(k);
    }
    if (r != ERROR_SUCCESS)             /* not installed: report nothing */
        InterlockedDecrement(&open_count);
    return (DWORD)r;
}

DWORD WINAPI CloseTransfer(void)
{
    if (open_count > 0)
        InterlockedDecrement(&open_count);
    return ERROR_SUCCESS;
}

/* Whether QUERY asks for the object of name index INDEX: NULL, "" and
 * "Global" ask for every object; "Costly" and "Foreign ..." for none of
 * ours; otherwise a space-separated list of decimal indices. */
static int wanted(const WCHAR *query, DWORD index)
{
    if (!query || !*query || !_wcsicmp(query, L"Global"))
        return 1;
    if (!_wcsicmp(query, L"Costly") || !_wcsnicmp(query, L"Foreign", 7))
        return 0;
    const WCHAR *p = query;
    while (*p) {
        while (*p == L' ')
            p++;
        if (!*p)
            break;
        DWORD v = 0;
        int digits = 0;
        while (*p >= L'0' && *p <= L'9') {
            v = v * 10 + (DWORD)(*p++ - L'0');
            digits++;
        }
        if (digits && (*p == L' ' || !*p) && v == index)
            return 1;
        while (*p && *p != L' ')
            p++;
    }
    return 0;
}

#define ALIGN8(n) (((n) + 7u) & ~(DWORD)7u)

static void define_counter(PERF_COUNTER_DEFINITION *d, DWORD offset,
                           DWORD type, DWORD size, DWORD at)
{
    memset(d, 0, sizeof *d);
    d->ByteLength = sizeof *d;
    d->CounterNameTitleIndex = name_base() + offset +
                               (TRANSFERPERF_FAULT == 3 ? 100 : 0);
    d->CounterHelpTitleIndex = first_help + offset;
    d->DetailLevel = PERF_DETAIL_NOVICE;
    d->CounterType = type;
    d->CounterSize = size;
    d->CounterOffset = at;
}

static void define_object(PERF_OBJECT_TYPE *o, DWORD total, DWORD counters,
                          DWORD offset, LONG instances)
{
    memset(o, 0, sizeof *o);
    o->TotalByteLength = total;
    o->DefinitionLength = sizeof *o + counters * sizeof(PERF_COUNTER_DEFINITION);
    o->HeaderLength = sizeof *o;
    o->ObjectNameTitleIndex = name_base() + offset;
    o->ObjectHelpTitleIndex = first_help + offset;
    o->DetailLevel = PERF_DETAIL_NOVICE;
    o->NumCounters = (DWORD)counters;
    o->DefaultCounter = 0;
    o->NumInstances = instances;
    o->CodePage = 0;                    /* instance names are UTF-16 */
}

/* Transfer: three counters, one PERF_COUNTER_BLOCK. */
struct transfer_data {
    PERF_COUNTER_BLOCK cb;
    DWORD pad;
    ULONGLONG bytes_sent, available, sent_per_sec;
};

static DWORD transfer_size(void)
{
    return ALIGN8(sizeof(PERF_OBJECT_TYPE) +
                  3 * sizeof(PERF_COUNTER_DEFINITION) +
                  sizeof(struct transfer_data)) +
           (TRANSFERPERF_FAULT == 1 ? 4 : 0);
}

static void put_transfer(BYTE *p)
{
    DWORD size = transfer_size();
    memset(p, 0, size);
    define_object((PERF_OBJECT_TYPE *)p, size, 3, TRANSFER_OBJECT,
                  PERF_NO_INSTANCES);
    PERF_COUNTER_DEFINITION *d =
        (PERF_COUNTER_DEFINITION *)(p + sizeof(PERF_OBJECT_TYPE));
    define_counter(&d[0], BYTES_SENT, PERF_COUNTER_LARGE_RAWCOUNT, 8,
                   offsetof(struct transfer_data, bytes_sent));
    define_counter(&d[1], AVAILABLE_BYTES, PERF_COUNTER_LARGE_RAWCOUNT, 8,
                   offsetof(struct transfer_data, available));
    define_counter(&d[2], SENT_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, 8,
                   offsetof(struct transfer_data, sent_per_sec));
    struct transfer_data *v = (struct transfer_data *)(d + 3);
    v->cb.ByteLength = sizeof *v;
    v->bytes_sent = V_BYTES_SENT;
    v->available = V_AVAILABLE_BYTES;
    v->sent_per_sec = V_SENT_PER_SEC;
}

/* Peer: two counters per instance. */
struct peer_data {
    PERF_COUNTER_BLOCK cb;
    DWORD active;
    ULONGLONG received;
};

static const struct {
    const WCHAR *name;
    DWORD active;
    ULONGLONG received;
} peers[] = {{L"alpha", 1, 1111}, {L"beta", 0, 2222}};
#define N_PEERS (sizeof peers / sizeof peers[0])

static DWORD peer_instance_size(size_t i)
{
    DWORD name = (DWORD)((wcslen(peers[i].name) + 1) * sizeof(WCHAR));
    return ALIGN8(sizeof(PERF_INSTANCE_DEFINITION) + name) +
           ALIGN8(sizeof(struct peer_data));
}

static DWORD peer_size(void)
{
    DWORD n = ALIGN8(sizeof(PERF_OBJECT_TYPE) +
                     2 * sizeof(PERF_COUNTER_DEFINITION));
    for (size_t i = 0; i < N_PEERS; i++)
        n += peer_instance_size(i);
    return n;
}

static void put_peer(BYTE *p)
{
    DWORD size = peer_size();
    memset(p, 0, size);
    define_object((PERF_OBJECT_TYPE *)p, size, 2, PEER_OBJECT, N_PEERS);
    PERF_COUNTER_DEFINITION *d =
        (PERF_COUNTER_DEFINITION *)(p + sizeof(PERF_OBJECT_TYPE));
    define_counter(&d[0], PEER_BYTES_RECEIVED, PERF_COUNTER_BULK_COUNT, 8,
                   offsetof(struct peer_data, received));
    define_counter(&d[1], ACTIVE_PEERS, PERF_COUNTER_RAWCOUNT, 4,
                   offsetof(struct peer_data, active));
    BYTE *q = p + ALIGN8(sizeof(PERF_OBJECT_TYPE) +
                         2 * sizeof(PERF_COUNTER_DEFINITION));
    for (size_t i = 0; i < N_PEERS; i++) {
        PERF_INSTANCE_DEFINITION *in = (PERF_INSTANCE_DEFINITION *)q;
        DWORD name = (DWORD)((wcslen(peers[i].name) + 1) * sizeof(WCHAR));
        in->ByteLength = ALIGN8(sizeof *in + name);
        in->ParentObjectTitleIndex = 0;
        in->ParentObjectInstance = 0;
        in->UniqueID = PERF_NO_UNIQUE_ID;
        in->NameOffset = sizeof *in;
        in->NameLength = name;
        memcpy(q + sizeof *in, peers[i].name, name);
        struct peer_data *v = (struct peer_data *)(q + in->ByteLength);
        v->cb.ByteLength = ALIGN8(sizeof *v);
        v->active = peers[i].active;
        v->received = peers[i].received;
        q += peer_instance_size(i);
    }
}

DWORD WINAPI CollectTransfer(LPWSTR query, LPVOID *data, LPDWORD bytes,
                             LPDWORD objects)
{
    if (open_count <= 0 || !data || !*data || !bytes || !objects) {
        if (bytes)
            *bytes = 0;
        if (objects)
            *objects = 0;
        return ERROR_SUCCESS;
    }
    int want_transfer = wanted(query, name_base() + TRANSFER_OBJECT);
    int want_peer = wanted(query, name_base() + PEER_OBJECT);
    DWORD need = (want_transfer ? transfer_size() : 0) +
                 (want_peer ? peer_size() : 0);
    if (need > *bytes) {
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    BYTE *p = *data;
    DWORD n = 0;
    if (want_transfer) {
        put_transfer(p);
        p += transfer_size();
        n++;
    }
    if (want_peer) {
        put_peer(p);
        p += peer_size();
        n++;
    }
    *data = p;
    *bytes = need;
    *objects = n;
    return ERROR_SUCCESS;
}
