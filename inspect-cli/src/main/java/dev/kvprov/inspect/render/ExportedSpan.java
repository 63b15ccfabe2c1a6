package dev.kvprov.inspect.render;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.common.InstrumentationLibraryInfo;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.util.List;

/**
 * A span rebuilt from a pool, as the OpenTelemetry exporters take it: ended, internal, without
 * links; its events are the boot's milestones recorded on it (kvprov's run span), the others a
 * pool's span records keep are points of the timeline, not exported.
 */
record ExportedSpan(
    String name,
    SpanContext spanContext,
    SpanContext parentSpanContext,
    StatusData status,
    long startEpochNanos,
    long endEpochNanos,
    Attributes attributes,
    Resource resource,
    List<EventData> events)
    implements SpanData {

  /** The spans were not recorded by kvp; the scope says who rebuilt them. */
  static final InstrumentationScopeInfo SCOPE = InstrumentationScopeInfo.create("kvp");

  ExportedSpan {
    requireNonNull(name, "name");
    requireNonNull(spanContext, "spanContext");
    requireNonNull(parentSpanContext, "parentSpanContext");
    requireNonNull(status, "status");
    requireNonNull(attributes, "attributes");
    requireNonNull(resource, "resource");
    events = List.copyOf(events);
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public SpanKind getKind() {
    return SpanKind.INTERNAL;
  }

  @Override
  public SpanContext getSpanContext() {
    return spanContext;
  }

  @Override
  public SpanContext getParentSpanContext() {
    return parentSpanContext;
  }

  @Override
  public StatusData getStatus() {
    return status;
  }

  @Override
  public long getStartEpochNanos() {
    return startEpochNanos;
  }

  @Override
  public Attributes getAttributes() {
    return attributes;
  }

  @Override
  public List<EventData> getEvents() {
    return events;
  }

  @Override
  public List<LinkData> getLinks() {
    return List.of();
  }

  @Override
  public long getEndEpochNanos() {
    return endEpochNanos;
  }

  @Override
  public boolean hasEnded() {
    return true;
  }

  @Override
  public int getTotalRecordedEvents() {
    return events.size();
  }

  @Override
  public int getTotalRecordedLinks() {
    return 0;
  }

  @Override
  public int getTotalAttributeCount() {
    return attributes.size();
  }

  @Override
  @SuppressWarnings("deprecation") // still abstract in the interface
  public InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
    return InstrumentationLibraryInfo.create(SCOPE.getName(), SCOPE.getVersion());
  }

  @Override
  public InstrumentationScopeInfo getInstrumentationScopeInfo() {
    return SCOPE;
  }

  @Override
  public Resource getResource() {
    return resource;
  }
}
