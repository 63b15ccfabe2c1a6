/**
 * The agent's logging backend: logback, set up in code (or from {@code /etc/kvprov/logback.xml}),
 * writing kvprov's stderr lines, and sending the program's log events into its telemetry.
 */
package dev.kvprov.agent.logging;
