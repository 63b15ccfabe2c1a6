/**
 * Reading and writing Hyper-V KVP pool files ({@code /var/lib/hyperv/.kvp_pool_N}) safely beside
 * every other writer of the same file: the fixed-size record codec, the limits that reach the host
 * intact, UTF-8-safe chunking, a locked store, and the boot clock and VM id that writers stamp on
 * their records.
 */
package dev.kvprov.kvp;
