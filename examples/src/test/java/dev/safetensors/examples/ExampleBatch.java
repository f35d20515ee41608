package dev.safetensors.examples;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The main class of a child JVM that runs several examples one after another, each as {@code java -cp ... Example
 * ARGS} would run it, so that the examples sharing one environment pay for one JVM's start and one load of their SDK
 * instead of one each (a fresh JVM loading the AWS, Google or Azure client costs 1 to 5 s of CPU, most of the
 * examples module's test time).
 *
 * <p>The protocol, driven by {@link ExampleProcess#runAll}: each line on standard input is one invocation, the example's
 * class name then its arguments, each URL-encoded and separated by a space. The invocation's {@code System.out} and
 * {@code System.err} are its own, written to {@code N.out} and {@code N.err} in the folder named by the one argument
 * ({@code N} counting from 0); an exception thrown by {@code main} is reported as the JVM reports an uncaught one:
 * {@code Exception in thread "main" } and the stack trace on that invocation's standard error, exit code 1. Then
 * {@code ExampleBatch done N EXIT} on the JVM's own standard output tells the driver the invocation is over, and the
 * next line is read only after that, so the driver can look at the servers' requests between two invocations. The
 * batch ends with standard input; the JVM then ends as a single example's would, once no thread but daemons is left.
 */
public final class ExampleBatch {
    /** The start of the line that ends an invocation, followed by its number and exit code. */
    static final String DONE = "ExampleBatch done ";

    private ExampleBatch() {
    }

    /**
     * @param args the folder the invocations' outputs are written to
     * @throws Exception if the protocol breaks (an unknown class, a folder that cannot be written): the batch is over
     */
    public static void main(String[] args) throws Exception {
        Path results = Path.of(args[0]);
        // the protocol goes to the JVM's own standard output, which no invocation writes to once System.out is its own
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream jvmOut = System.out;
        PrintStream jvmErr = System.err;
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int n = 0;
        for (String line = commands.readLine(); line != null; line = commands.readLine(), n++) {
            List<String> fields = decode(line);
            Method main = Class.forName(fields.get(0)).getMethod("main", String[].class);
            String[] arguments = fields.subList(1, fields.size()).toArray(String[]::new);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream invocationOut = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream invocationErr = new PrintStream(err, true, StandardCharsets.UTF_8);
            int exit = 0;
            System.setOut(invocationOut);
            System.setErr(invocationErr);
            try {
                main.invoke(null, (Object) arguments);
            } catch (InvocationTargetException thrown) {
                exit = 1;
                // what the JVM's default handler prints for an exception that leaves main
                invocationErr.print("Exception in thread \"" + Thread.currentThread().getName() + "\" ");
                thrown.getCause().printStackTrace(invocationErr);
            } finally {
                System.setOut(jvmOut);
                System.setErr(jvmErr);
            }
            invocationOut.flush();
            invocationErr.flush();
            Files.write(results.resolve(n + ".out"), out.toByteArray());
            Files.write(results.resolve(n + ".err"), err.toByteArray());
            protocol.println(DONE + n + " " + exit);
        }
    }

    /**
     * @param main the example
     * @param args its arguments
     * @return the line that asks a batch to run it
     */
    static String encode(Class<?> main, List<String> args) {
        List<String> fields = new ArrayList<>();
        fields.add(main.getName());
        fields.addAll(args);
        return String.join(" ", fields.stream().map(f -> URLEncoder.encode(f, StandardCharsets.UTF_8)).toList());
    }

    private static List<String> decode(String line) {
        return Arrays.stream(line.split(" ", -1)).map(f -> URLDecoder.decode(f, StandardCharsets.UTF_8)).toList();
    }
}
