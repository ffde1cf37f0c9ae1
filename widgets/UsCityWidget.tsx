import { useEffect, useMemo, useRef } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { citiesOf, citiesPath, cityAfterStateChange, stateCodeOf } from './placesData';
import { RemoteSelect } from './RemoteSelect';
import { useRemoteList } from './useRemoteList';
import { useFieldValue } from './formValues';
import { formContextOf, optionString, widgetText } from './widgetProps';

/**
 * A select of the cities of the state chosen in another field of the same form
 * (`ui:options.stateField`, read from the form values store in `formContext.values`). The list is fetched from
 * /data/cities/<CODE>.json when that state is chosen. When the state changes and the city is not
 * one of the new state's cities, the city is cleared.
 *
 * ui:placeholder is the empty choice. ui:options: stateField ("state"), noStateText,
 * loadingText, loadErrorText, retryText.
 */
export default function UsCityWidget(props: WidgetProps) {
  const { value, options, onChange } = props;
  const city = typeof value === 'string' && value !== '' ? value : undefined;
  const stateField = optionString(options, 'stateField') ?? 'state';
  const stateCode = stateCodeOf(useFieldValue(formContextOf(props).values, stateField));
  const [list, retry] = useRemoteList(stateCode && citiesPath(stateCode), citiesOf);
  const items = list.status === 'ready' ? list.items : undefined;

  // The state this widget last saw, and whether the city still has to be checked against the
  // new state's list (which may take a moment to arrive).
  const seenState = useRef(stateCode);
  const checkPending = useRef(false);
  useEffect(() => {
    if (seenState.current !== stateCode) {
      seenState.current = stateCode;
      checkPending.current = true;
    }
    if (!checkPending.current) return;
    if (stateCode !== undefined && items === undefined) return;
    checkPending.current = false;
    const next = cityAfterStateChange(city, items);
    // Only a city that was there is cleared: an empty city is left untouched, so its
    // "required" message does not appear just because a state was picked.
    if (next !== city && city !== undefined) onChange(next);
  });

  // Memoised: a state can have a thousand cities and the form re-renders on every key press.
  const optionElements = useMemo(
    () =>
      items?.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      )),
    [items],
  );
  const known = useMemo(() => new Set(items), [items]);
  const unknownValue = city !== undefined && !known.has(city);

  return (
    <RemoteSelect
      widget={props}
      value={city ?? ''}
      unknownValue={unknownValue}
      list={list}
      retry={retry}
      defaultAutoComplete="address-level2"
      loadingTextOf="citiesLoading"
      errorTextOf="citiesLoadError"
      idleText={widgetText(props, 'noStateText', 'noStateChosen')}
    >
      {optionElements}
    </RemoteSelect>
  );
}
