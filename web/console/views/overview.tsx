export function OverviewView() {
  return (
    <section>
      <h1>Overview</h1>
    </section>
  );
}
