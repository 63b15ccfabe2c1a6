package dev.kvprov.inspect.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Ctrl-C (SIGINT) as an ordinary way to end a command that runs until stopped: the command finishes
 * its output and exits with its own status, instead of the JVM dying with 130.
 *
 * <p>Only {@code sun.misc.Signal} can do this; the JDK keeps it for exactly such uses (JEP 260). It
 * is reached by reflection, as JLine does, because javac warns about every direct use and the
 * warning cannot be suppressed under {@code --release}. Where it is missing or the JVM reserves
 * SIGINT ({@code -Xrs}), Ctrl-C keeps its usual effect.
 */
final class CtrlC {
  private CtrlC() {}

  /** Runs {@code action} on Ctrl-C; returns what puts back the handler there was before. */
  static Runnable onInterrupt(Runnable action) {
    try {
      Class<?> signalType = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      Object signal = signalType.getConstructor(String.class).newInstance("INT");
      Object handler =
          Proxy.newProxyInstance(
              handlerType.getClassLoader(),
              new Class<?>[] {handlerType},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "handle" -> {
                      action.run();
                      yield null;
                    }
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "kvp Ctrl-C handler";
                  });
      Object previous = handle.invoke(null, signal, handler);
      return () -> {
        try {
          handle.invoke(null, signal, previous);
        } catch (ReflectiveOperationException e) {
          // it was accepted a moment ago: putting the JVM's own handler back cannot fail
        }
      };
    } catch (ReflectiveOperationException | RuntimeException e) {
      return () -> {};
    }
  }
}
