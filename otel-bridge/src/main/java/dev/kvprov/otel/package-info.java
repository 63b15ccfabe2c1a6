/**
 * OpenTelemetry traces and logs written as Hyper-V KVP records the host can read without a network,
 * mirrored to stderr, and optionally sent over OTLP — wired by {@link
 * dev.kvprov.otel.KvpTelemetry#builder()}. The record grammar is {@link
 * dev.kvprov.otel.KvpRecordFormat}; the platform's provisioning report is {@link
 * dev.kvprov.otel.ProvisioningReport}.
 */
package dev.kvprov.otel;
