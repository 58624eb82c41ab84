export function ReportsView() {
  return (
    <section>
      <h1>Reports</h1>
    </section>
  );
}
