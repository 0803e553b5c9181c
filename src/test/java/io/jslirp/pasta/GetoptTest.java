package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GetoptTest {
    private static final List<Getopt.LongOption> LONG = List.of(new Getopt.LongOption("one", false, "1"),
            new Getopt.LongOption("two", false, "2"), new Getopt.LongOption("one-one", false, "3"),
            new Getopt.LongOption("onto", false, "5"), new Getopt.LongOption("value", true, "v"),
            new Getopt.LongOption("value-too", true, "v"));

    private static List<String> all(Getopt g) {
        List<String> out = new ArrayList<>();
        for (Getopt.Found f; (f = g.next()) != null; ) {
            out.add(f.failed() ? f.error() : f.key() + (f.argument() == null ? "" : "=" + f.argument()));
        }
        return out;
    }

    @Test
    void glibcsOwnAmbiguityExample() {
        // glibc's tst-getopt_long1: "--on" against one, two, one-one, four, onto.
        assertThat(all(new Getopt("program", "+12345", LONG, List.of("--on"))))
                .containsExactly("program: option '--on' is ambiguous; possibilities: '--one' '--one-one' '--onto'");
    }

    @Test
    void anExactNameBeatsLongerOnesAndTwinsAreNotAmbiguous() {
        assertThat(all(new Getopt("p", "+", LONG, List.of("--one", "--val=x", "--value-t", "y")))).containsExactly("1", "v=x", "v=y");
    }

    @Test
    void operandsAfterTheOptions() {
        Getopt g = new Getopt("p", "+ab:", LONG, List.of("-ab", "x", "--", "-a"));
        assertThat(all(g)).containsExactly("a", "b=x");
        assertThat(g.firstOperand()).isEqualTo(3);
        Getopt h = new Getopt("p", "+a", LONG, List.of("-a", "cmd", "-a"));
        assertThat(all(h)).containsExactly("a");
        assertThat(h.firstOperand()).isEqualTo(1);
        Getopt empty = new Getopt("p", "+a", LONG, List.of());
        assertThat(all(empty)).isEmpty();
        assertThat(empty.firstOperand()).isZero();
    }
}
