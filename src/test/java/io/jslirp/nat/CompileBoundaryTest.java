package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The launcher keeps TcpFlow.segment a compilation of its own ({@link TcpFlow#DONT_INLINE}): the
 * option names the method by its name, which a rename would leave naming nothing, silently.
 */
class CompileBoundaryTest {
    @Test
    void theLauncherNamesAMethodThatExists() throws Exception {
        String launcher = Files.readString(Path.of(System.getProperty("user.dir"), "jslirp"));
        assertThat(launcher).contains("-XX:CompileCommand=" + TcpFlow.DONT_INLINE);
        String[] target = TcpFlow.DONT_INLINE.substring("dontinline,".length()).split("::");
        assertThat(target[0]).isEqualTo(TcpFlow.class.getName());
        assertThat(Arrays.stream(TcpFlow.class.getDeclaredMethods()).map(java.lang.reflect.Method::getName))
                .as("methods of %s", target[0]).contains(target[1]);
    }
}
