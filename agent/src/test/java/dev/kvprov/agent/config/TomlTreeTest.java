package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The parser's own tree is the one a {@code TomlMapper} reads: node types, values, errors. */
class TomlTreeTest {
  private static final TomlMapper MAPPER = new TomlMapper();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "# only a comment\n",
        "[imds]\nendpoint = \"http://169.254.169.254\"\nconnection_timeout_secs = 2.0\n",
        "a = 1\nb = 2147483648\nc = 92233720368547758070\nd = -0\ne = 0x1F\nf = 0o17\ng = 0b101\n",
        "a = 1.5\nb = 1e300\nc = -2.5E-3\nd = inf\ne = -inf\nf = nan\ng = 3.141592653589793238\n",
        "a = true\nb = false\nc = 'literal'\nd = \"\"\"\nmulti\nline\"\"\"\ne = \"\\u00e9\"\n",
        "a = [1, 2, 3]\nb = [[1, 2], [\"x\"]]\nc = []\nd = {x = 1, y = {z = \"w\"}}\n",
        "[[t]]\nx = 1\n[[t]]\nx = 2\n[s.u.v]\nw = 3\n",
        "a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27T00:32:00.999\n",
        "a = 1979-13-45\nb = 25:61:00\n",
        "[user_provisioners]\nbackends = [\"useradd\"]\n[telemetry]\nkvp_diagnostics = true\n",
      })
  void aTomlText_givesTheMappersTree(String text) throws Exception {
    assertThat(TomlTree.read(text)).isEqualTo(MAPPER.readTree(text));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a = \n",
        "[imds\nendpoint = 1\n",
        "a = 1\na = 2\nb = 3\n",
        "a = \"unterminated\n",
        "= 1\n",
      })
  void aTextThatIsNotToml_failsAsTheMapperFails(String text) {
    JacksonException ours = catchThrowableOfType(JacksonException.class, () -> TomlTree.read(text));
    JacksonException mappers =
        catchThrowableOfType(JacksonException.class, () -> MAPPER.readTree(text));

    assertThat(ours).isNotNull();
    assertThat(ours.getOriginalMessage()).isEqualTo(mappers.getOriginalMessage());
    assertThat(ours.getLocation().getLineNr()).isEqualTo(mappers.getLocation().getLineNr());
    assertThat(ours.getLocation().getColumnNr()).isEqualTo(mappers.getLocation().getColumnNr());
  }
}
