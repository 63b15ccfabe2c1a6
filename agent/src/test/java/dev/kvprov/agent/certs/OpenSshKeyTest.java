package dev.kvprov.agent.certs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAKeyGenParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The encoder against the real ssh-keygen, both ways. */
class OpenSshKeyTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({"1024, 3", "2048, 65537", "3072, 65537", "4096, 17"})
  void rsa_isWhatSshKeygenMakesOfTheSameKey(int bits, int exponent) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(new RSAKeyGenParameterSpec(bits, BigInteger.valueOf(exponent)));
    RSAPublicKey key = (RSAPublicKey) generator.generateKeyPair().getPublic();
    Files.writeString(dir.resolve("key.pem"), Tools.pem("PUBLIC KEY", key.getEncoded()));

    String expected = Tools.run(dir, "ssh-keygen", "-i", "-m", "PKCS8", "-f", "key.pem").strip();

    assertThat(OpenSshKey.rsa(key.getPublicExponent(), key.getModulus())).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1024, 2048, 3072})
  void rsa_givesBackTheKeyOfAKeyPairSshKeygenMade(int bits) throws Exception {
    Tools.run(
        dir, "ssh-keygen", "-q", "-t", "rsa", "-b", String.valueOf(bits), "-N", "", "-f", "id");
    String[] line = Files.readString(dir.resolve("id.pub")).strip().split(" ");
    String spki = Tools.run(dir, "ssh-keygen", "-e", "-m", "PKCS8", "-f", "id.pub");
    RSAPublicKey key =
        (RSAPublicKey)
            KeyFactory.getInstance("RSA")
                .generatePublic(
                    new X509EncodedKeySpec(
                        Base64.getMimeDecoder()
                            .decode(spki.replaceAll("-----[A-Z ]+-----", "").strip())));

    assertThat(OpenSshKey.rsa(key.getPublicExponent(), key.getModulus()))
        .isEqualTo(line[0] + " " + line[1]);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -3})
  void rsa_refusesANonPositiveNumber(int exponent) {
    assertThatThrownBy(() -> OpenSshKey.rsa(BigInteger.valueOf(exponent), BigInteger.TEN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
