package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a user name is found in a record, and where a word that only stands near one is not. */
class UserNamesTest {
  @Test
  void everyShapeOfName_isFound_andReplacedWhole() {
    UserNames names = new UserNames();
    names.learn("Name: provision.user | Attr: user=alice | Attr: created:bool=false");
    names.learn("adminUsername: user name 'bob' is a system account");
    names.learn("{\"adminUsername\": \"carol\"}");
    names.learn("result=error|reason=x|UserName=dave|agent=kvprov");
    names.learn("<wa:UserName> erin </wa:UserName>");
    names.learn("/home/frank: a link out of the root");
    names.learn("Attr: process.command_args:string[]=/usr/sbin/useradd,-m,grace, | Attr: x=1");

    assertThat(names.size()).isEqualTo(7);
    assertThat(names.redact("alice bob carol dave erin frank grace alicea"))
        .isEqualTo(
            String.join(
                " ",
                UserNames.replacement("alice"),
                UserNames.replacement("bob"),
                UserNames.replacement("carol"),
                UserNames.replacement("dave"),
                UserNames.replacement("erin"),
                UserNames.replacement("frank"),
                UserNames.replacement("grace"),
                "alicea"));
  }

  @Test
  void wordsNearAName_andSystemAccounts_areNotTaken() throws Exception {
    UserNames names = new UserNames();
    names.learn("adminUsername: the user name is missing");
    names.learn("Could not create user 'root': a system account");
    names.learn("Attr: process.command_args:string[]=useradd,-m, | Attr: x=1");

    assertThat(names.size()).isZero();
    assertThat(names.redact("the user name is missing")).isEqualTo("the user name is missing");
  }
}
